// Entry point of the hosted challenge app (docs/challenge-app.md): mount the shell, then open the challenge from the URL.
import { render } from "preact";
import { App } from "./app.js";
import { start } from "./state.js";
import "./styles.css";

render(<App />, document.getElementById("app")!);
void start();

// Entry point of the console (docs/console.md): mount the shell, then find out whether a session is open.
import { render } from "preact";
import { App } from "./app.js";
import { loadSession } from "./state.js";
import "./styles.css";

render(<App />, document.getElementById("app")!);
void loadSession();

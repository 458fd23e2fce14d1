// Small building blocks shared by the screens: the focusable screen title and the live regions for messages.
import type { ComponentChildren } from "preact";
import { notice } from "./state.js";

/** The screen's heading; focus moves here (or to a [data-autofocus] field) when the screen changes. */
export function Title({ children }: { children: ComponentChildren }) {
  return (
    <h1 id="screen-title" tabIndex={-1}>
      {children}
    </h1>
  );
}

/** Errors are announced assertively, confirmations politely; both regions exist before their text appears. */
export function Notice() {
  const n = notice.value;
  return (
    <>
      <p id="notice-error" class={n?.kind === "error" ? "notice error" : "notice"} role="alert">
        {n?.kind === "error" ? n.text : ""}
      </p>
      <p class={n?.kind === "info" ? "notice info" : "notice"} role="status">
        {n?.kind === "info" ? n.text : ""}
      </p>
    </>
  );
}

/** Keeps an email or phone number left-to-right inside right-to-left text (Unicode isolate). */
export const isolate = (s: string) => `\u2066${s}\u2069`;

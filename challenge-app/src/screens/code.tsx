// "Enter the code" (SPEC.md 11): six digits, typed or pasted, sent as soon as the sixth arrives; attempts left;
// resend after a countdown; another channel.
import type { Channel } from "@tessera/sdk/contract";
import { useEffect, useRef, useState } from "preact/hooks";
import { t } from "../i18n/index.js";
import { busy, notice, now, openChannels, otherChannel, resendIn, screen, send, verify, view } from "../state.js";
import { isolate, Notice, Title } from "../ui.js";

const CODE_LENGTH = 6;

/** Keeps digits only, reading Arabic-Indic and Persian digits as their ASCII values (a pasted "١٢٣ ٤٥٦" works). */
const digitsOf = (s: string) =>
  s
    .replace(/[\u0660-\u0669\u06f0-\u06f9]/g, (d) => String(d.charCodeAt(0) & 0xf))
    .replace(/\D/g, "")
    .slice(0, CODE_LENGTH);

export function Code({ channel }: { channel: Channel }) {
  const m = t.value;
  const v = view.value!;
  const [code, setCode] = useState("");
  const input = useRef<HTMLInputElement>(null);
  const destination = v.available_channels.find((c) => c.channel === channel)?.destination ?? "";
  const wait = resendIn.value;
  // Announce the end of the countdown once, not every second.
  const [counted, setCounted] = useState(false);

  useEffect(() => {
    const update = () => {
      now.value = Date.now();
    };
    update();
    const tick = setInterval(update, 1000);
    return () => clearInterval(tick);
  }, []);
  useEffect(() => {
    if (wait > 0) setCounted(true);
  }, [wait]);

  const submit = async (value: string) => {
    if (value.length !== CODE_LENGTH || busy.value) return;
    await verify(value);
    if (screen.value.name === "code") {
      setCode("");
      input.current?.focus();
    }
  };
  const onInput = (e: Event) => {
    const el = e.currentTarget as HTMLInputElement;
    const value = digitsOf(el.value);
    el.value = value;
    setCode(value);
    if (value.length === CODE_LENGTH) void submit(value);
  };
  const failed = notice.value?.kind === "error";

  return (
    <section aria-labelledby="screen-title">
      <Title>{m.code.title}</Title>
      <p id="code-hint">{m.code.sentTo(isolate(destination))}</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit(code);
        }}
      >
        <label for="code">{m.code.label}</label>
        <input
          ref={input}
          id="code"
          class="code"
          data-autofocus
          type="text"
          inputMode="numeric"
          autoComplete="one-time-code"
          spellcheck={false}
          dir="ltr"
          value={code}
          onInput={onInput}
          readOnly={busy.value}
          aria-invalid={failed}
          aria-describedby="code-hint code-attempts notice-error"
        />
        <p id="code-attempts" class="muted">
          {m.code.attempts(v.attempts_left)}
        </p>
        <Notice />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy.value || code.length !== CODE_LENGTH}>
            {m.code.verify}
          </button>
        </div>
      </form>
      <div class="actions">
        <button type="button" class="secondary" disabled={busy.value || wait > 0} onClick={() => send(channel, true)}>
          {m.code.resend}
        </button>
        {v.available_channels.length > 1 && openChannels.value.length > 0 && (
          <button type="button" class="secondary" onClick={otherChannel} disabled={busy.value}>
            {m.code.other}
          </button>
        )}
      </div>
      <p class="muted">{wait > 0 ? m.code.resendIn(wait) : ""}</p>
      <p class="sr-only" aria-live="polite">
        {counted && wait === 0 ? m.code.resendReady : ""}
      </p>
    </section>
  );
}

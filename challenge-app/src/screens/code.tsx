// "Enter the code" (docs/challenge-app.md): six digits, typed or pasted, sent as soon as the sixth arrives; attempts left;
// resend after a countdown; another channel.
import type { Channel } from "@tessera/sdk/contract";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { lang, t } from "../i18n/index.js";
import { busy, notice, now, openChannels, otherChannel, resendIn, screen, send, verify, view } from "../state.js";
import { isolate, Notice, Title } from "../ui.js";

const CODE_LENGTH = 6;

/** Keeps digits only, reading Arabic-Indic and Persian digits as their ASCII values (a pasted "١٢٣ ٤٥٦" works). */
const digitsOf = (s: string) =>
  s
    .replace(/[\u0660-\u0669\u06f0-\u06f9]/g, (d) => String(d.charCodeAt(0) & 0xf))
    .replace(/\D/g, "")
    .slice(0, CODE_LENGTH);

/** "10 minutes", in the page's language: how long the code stays valid from `at` (CHALLENGE_CODE_TTL_MS on the server). */
function validity(expiresAt: string | undefined, at: number): string | undefined {
  const ms = expiresAt ? Date.parse(expiresAt) - at : Number.NaN;
  if (!(ms > 0)) return undefined;
  const [value, unit] = ms >= 60_000 ? [Math.round(ms / 60_000), "minute"] : [Math.ceil(ms / 1000), "second"];
  return new Intl.NumberFormat(lang.value, { style: "unit", unit, unitDisplay: "long" }).format(value);
}

/**
 * WebOTP: on a phone, the browser reads the code from the text message (whose last line names this host) and offers
 * it; nothing happens where the API is missing or the user declines.
 */
function useWebOtp(active: boolean, fill: (code: string) => void): void {
  useEffect(() => {
    if (!active || !("OTPCredential" in window)) return;
    const abort = new AbortController();
    navigator.credentials
      .get({ otp: { transport: ["sms"] }, signal: abort.signal } as CredentialRequestOptions)
      .then((c) => {
        const code = (c as { code?: string } | null)?.code;
        if (code) fill(code);
      })
      .catch(() => undefined);
    return () => abort.abort();
  }, [active]);
}

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
  // Read when the code arrives (a resend brings a new expiry), not every second.
  const lasts = useMemo(() => validity(v.code_expires_at, Date.now()), [v.code_expires_at, lang.value]);
  useWebOtp(channel === "text", (value) => {
    const digits = digitsOf(value);
    setCode(digits);
    void submit(digits);
  });

  return (
    <section aria-labelledby="screen-title">
      <Title>{m.code.title}</Title>
      <p id="code-hint">
        {m.code.sentTo(isolate(destination))}
        {lasts ? ` ${m.code.validFor(lasts)}` : ""}
      </p>
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
          enterKeyHint="done"
          name="code"
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

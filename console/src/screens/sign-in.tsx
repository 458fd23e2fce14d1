// Signing in (docs/console.md): email and password; or, from a one-time link, choosing the password first.
import { useState } from "preact/hooks";
import { ApiError } from "../api.js";
import { t } from "../i18n/index.js";
import { signIn, useLink } from "../state.js";
import { act, Field, Title } from "../ui.js";

export function SignIn() {
  const m = t.value.signIn;
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  return (
    <section aria-labelledby="screen-title">
      <Title>{m.title}</Title>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void act(() => signIn(email, password));
        }}
      >
        <Field label={m.email}>
          {(id) => (
            <input id={id} type="email" autoComplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          )}
        </Field>
        <Field label={m.password}>
          {(id) => (
            <input
              id={id}
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          )}
        </Field>
        <button type="submit" class="primary">
          {m.submit}
        </button>
      </form>
    </section>
  );
}

export function Welcome({ token }: { token: string }) {
  const m = t.value.signIn;
  const [password, setPassword] = useState("");
  // The server's strength check (console/password-strength.ts) says why a password is too easy to guess: shown under
  // the field it is about, and read out with it.
  const [weak, setWeak] = useState<string | null>(null);
  return (
    <section aria-labelledby="screen-title">
      <Title>{m.welcome}</Title>
      <p>{m.welcomeHelp}</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setWeak(null);
          void act(() =>
            useLink(token, password).catch((err: unknown) => {
              // Said once, where it belongs (not again in the shell's notice); anything else goes to the notice.
              if (!(err instanceof ApiError && err.param === "password")) throw err;
              setWeak(err.message);
            }),
          );
        }}
      >
        <Field label={m.newPassword}>
          {(id) => (
            <input
              id={id}
              type="password"
              autoComplete="new-password"
              minLength={12}
              required
              value={password}
              aria-invalid={weak ? true : undefined}
              aria-describedby={weak ? "password-weak" : undefined}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          )}
        </Field>
        {weak && (
          <p id="password-weak" class="error" role="alert">
            {weak}
          </p>
        )}
        <button type="submit" class="primary">
          {m.setPassword}
        </button>
      </form>
    </section>
  );
}

// The shell: header (project, environment, language, sign out), the section navigation, the current screen and the
// live regions. Keeps <html lang dir> and the title in step, and moves focus to each new screen's heading.
import type { Language } from "@tessera/sdk/contract";
import { useEffect } from "preact/hooks";
import { CATALOGUES, lang, NATIVE_NAMES, setLanguage, t } from "./i18n/index.js";
import { Audit } from "./screens/audit.js";
import { Challenges } from "./screens/challenges.js";
import { EvaluationDetail } from "./screens/evaluation.js";
import { Evaluations } from "./screens/evaluations.js";
import { Lists } from "./screens/lists.js";
import { Overview } from "./screens/overview.js";
import { Policies } from "./screens/policies.js";
import { PolicyEditor } from "./screens/policy.js";
import { Settings } from "./screens/settings.js";
import { SignIn, Welcome } from "./screens/sign-in.js";
import { UserTimeline } from "./screens/user.js";
import { Users } from "./screens/users.js";
import { Webhooks } from "./screens/webhooks.js";
import { chooseProject, environment, environmentId, project, route, session, signOut } from "./state.js";
import { fieldError, notice } from "./ui.js";

const SECTIONS = ["overview", "evaluations", "users", "policies", "lists", "challenges", "webhooks", "settings", "audit"] as const;

function Screen() {
  const r = route.value;
  const env = environment.value?.id ?? "";
  // Keyed by environment: switching it reloads the screen's data.
  switch (r.screen) {
    case "evaluations":
      // Keyed by the filters too: a link to other filters (a device, a user) opens a fresh search.
      return r.id ? <EvaluationDetail key={env + r.id} id={r.id} /> : <Evaluations key={env + r.params.toString()} />;
    case "users":
      // Keyed by the search too: a new query mounts a fresh list.
      return r.id ? <UserTimeline key={env + r.id} id={r.id} /> : <Users key={env + r.params.toString()} />;
    case "policies":
      return r.id ? <PolicyEditor key={env + r.id} id={r.id} /> : <Policies key={env} />;
    case "lists":
      return <Lists key={env + (r.id ?? "")} id={r.id} />;
    case "challenges":
      return <Challenges key={env} />;
    case "webhooks":
      return <Webhooks key={env} />;
    case "settings":
      return <Settings key={env} />;
    case "audit":
      return <Audit key={env} />;
    default:
      return <Overview key={env} />;
  }
}

/**
 * The live regions (always in the page, so that a message put in them is announced) and, while one holds a message,
 * the box around it with its dismiss button. An error stays until dismissed, the next action or another screen.
 */
function Live() {
  const n = notice.value;
  return (
    <div class={n ? `notices ${n.kind}` : "notices"}>
      <p class="notice" role="alert">
        {n?.kind === "error" ? n.text : ""}
      </p>
      <p class="notice" role="status">
        {n?.kind === "info" ? n.text : ""}
      </p>
      {n && (
        <button
          type="button"
          class="dismiss"
          aria-label={t.value.errors.dismiss}
          onClick={() => {
            notice.value = null;
          }}
        >
          ×
        </button>
      )}
    </div>
  );
}

function LanguagePicker() {
  const m = t.value;
  return (
    <div class="picker">
      <label for="lang">{m.language}</label>
      <select id="lang" value={lang.value} onChange={(e) => setLanguage((e.currentTarget as HTMLSelectElement).value as Language)}>
        {(Object.keys(CATALOGUES) as Language[]).map((code) => (
          <option key={code} value={code} lang={code}>
            {NATIVE_NAMES[code]}
          </option>
        ))}
      </select>
    </div>
  );
}

export function App() {
  const m = t.value;
  const s = session.value;
  const r = route.value;
  useEffect(() => {
    document.documentElement.lang = lang.value;
    document.documentElement.dir = m.dir;
    document.title = m.title;
  }, [m]);
  useEffect(() => {
    // A new screen starts clean, but for the confirmation of what led to it.
    notice.value = notice.value?.carry ? { ...notice.value, carry: false } : null;
    fieldError.value = null;
    document.getElementById("screen-title")?.focus();
    // On a phone the sections scroll sideways in one row: keep the current one in view.
    document.querySelector(".nav [aria-current=page]")?.scrollIntoView({ block: "nearest", inline: "nearest" });
  }, [r.screen, r.id, s === null]);

  if (s === undefined)
    return (
      <main class="center" aria-busy="true">
        <p>{m.loading}</p>
      </main>
    );
  if (s === null || r.screen === "welcome")
    return (
      <div class="signed-out">
        <header>
          <span class="logo">Tessera</span>
        </header>
        <main class="center card">{r.screen === "welcome" ? <Welcome token={r.params.get("token") ?? ""} /> : <SignIn />}</main>
        <Live />
        <footer class="footer">
          <LanguagePicker />
        </footer>
      </div>
    );
  const p = project.value;
  const current = SECTIONS.includes(r.screen as (typeof SECTIONS)[number]) ? r.screen : "overview";
  return (
    <div class="shell">
      <header class="top">
        <span class="logo">Tessera</span>
        {p ? (
          <div class="pickers">
            <div class="picker">
              <label for="project">{m.shell.project}</label>
              <select id="project" value={p.id} onChange={(e) => chooseProject((e.currentTarget as HTMLSelectElement).value)}>
                {s.projects.map((x) => (
                  <option key={x.id} value={x.id}>
                    {x.name}
                  </option>
                ))}
              </select>
            </div>
            <div class="picker">
              <label for="environment">{m.shell.environment}</label>
              <select
                id="environment"
                value={environment.value?.id}
                onChange={(e) => {
                  environmentId.value = (e.currentTarget as HTMLSelectElement).value;
                }}
              >
                {p.environments.map((x) => (
                  <option key={x.id} value={x.id}>
                    {x.name}
                  </option>
                ))}
              </select>
            </div>
            <span class="role">{m.shell.role(p.role)}</span>
          </div>
        ) : null}
        <div class="account">
          <span class="who">{s.operator.email}</span>
          <button type="button" class="secondary" onClick={() => void signOut()}>
            {m.shell.signOut}
          </button>
        </div>
      </header>
      <nav class="nav" aria-label={m.nav.label}>
        <ul>
          {SECTIONS.map((x) => (
            <li key={x}>
              <a href={`#/${x}`} aria-current={x === current ? "page" : undefined}>
                {m.nav[x]}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main class="content">{p ? <Screen /> : <p>{m.signIn.noProjects}</p>}</main>
      <Live />
      <footer class="footer">
        <LanguagePicker />
      </footer>
    </div>
  );
}

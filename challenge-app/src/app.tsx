// The shell: branding header, the current screen, language picker. It keeps <html lang dir>, the title and the
// brand colour in step with the state, and moves focus to each new screen for keyboard and screen-reader users.
import type { Language } from "@tessera/sdk/contract";
import { useEffect } from "preact/hooks";
import { applyBrand, safeLogo } from "./brand.js";
import { CATALOGUES, lang, NATIVE_NAMES, t } from "./i18n/index.js";
import { Channel } from "./screens/channel.js";
import { Code } from "./screens/code.js";
import { Devices } from "./screens/devices.js";
import { Done } from "./screens/done.js";
import { Intro } from "./screens/intro.js";
import { Problem } from "./screens/problem.js";
import { backHref, projectName, screen, view } from "./state.js";
import { Title } from "./ui.js";

function Current() {
  const s = screen.value;
  switch (s.name) {
    case "intro":
      return <Intro />;
    case "channel":
      return <Channel />;
    case "code":
      return <Code channel={s.channel} />;
    case "devices":
      return <Devices />;
    case "done":
      return <Done outcome={s.outcome} />;
    case "problem":
      return <Problem problem={s.problem} detail={s.detail} />;
    default:
      return (
        <section aria-labelledby="screen-title" aria-busy="true">
          <Title>{t.value.loading}</Title>
          <div class="spinner" aria-hidden="true" />
        </section>
      );
  }
}

export function App() {
  const m = t.value;
  const project = view.value?.project;
  const logo = safeLogo(project?.logo_url);
  const s = screen.value;

  useEffect(() => {
    const html = document.documentElement;
    html.lang = lang.value;
    html.dir = m.dir;
    document.title = m.pageTitle(projectName.value || "Tessera");
  }, [m, projectName.value]);
  useEffect(() => applyBrand(project?.color), [project?.color]);
  useEffect(() => {
    const target = document.querySelector<HTMLElement>("[data-autofocus]") ?? document.getElementById("screen-title");
    target?.focus();
  }, [s]);

  return (
    <div class="shell" dir={m.dir} lang={lang.value}>
      <header class="brand">
        {logo && <img class="logo" src={logo} alt="" />}
        {project && <span class="brand-name">{project.name}</span>}
      </header>
      <main class="card">
        <Current />
      </main>
      <footer class="footer">
        {/* A way back to the site that leaves the challenge as it is (the done and problem screens have their own). */}
        {backHref.value && s.name !== "done" && s.name !== "problem" && (
          <a class="back" href={backHref.value}>
            {m.back(projectName.value)}
          </a>
        )}
        <label for="lang">{m.language}</label>
        <select id="lang" value={lang.value} onChange={(e) => (lang.value = (e.currentTarget as HTMLSelectElement).value as Language)}>
          {(Object.keys(CATALOGUES) as Language[]).map((code) => (
            <option key={code} value={code} lang={code}>
              {NATIVE_NAMES[code]}
            </option>
          ))}
        </select>
      </footer>
    </div>
  );
}

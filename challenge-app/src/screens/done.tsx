// "Done" (docs/challenges.md, docs/challenge-app.md): the flow is over; the browser returns to success_url?evaluation=<id>.
import { t } from "../i18n/index.js";
import { projectName, successHref } from "../state.js";
import { Title } from "../ui.js";

export function Done({ outcome }: { outcome: "completed" | "skipped" }) {
  const m = t.value;
  const href = successHref.value;
  return (
    <section aria-labelledby="screen-title">
      <div class="done-mark" aria-hidden="true" />
      <Title>{m.done[outcome]}</Title>
      {href ? (
        <>
          <p role="status">{m.done.back(projectName.value)}</p>
          <div class="actions">
            <a class="button primary" href={href}>
              {m.done.link(projectName.value)}
            </a>
          </div>
        </>
      ) : (
        <p role="status">{m.done.close}</p>
      )}
    </section>
  );
}

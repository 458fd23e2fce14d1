// The dead ends of the challenge flow (docs/challenge-app.md), each with its own plain explanation: expired link, failed, too many attempts,
// invalid link, replaced by a newer challenge, delivery failure, and any other error (shown, never swallowed).
import { t } from "../i18n/index.js";
import { backHref, busy, type Problem as Kind, lastChannel, otherChannel, projectName, retry, send, view } from "../state.js";
import { Notice, Title } from "../ui.js";

export function Problem({ problem, detail }: { problem: Kind; detail?: string }) {
  const m = t.value;
  const [title, body] = m.problem[problem] ?? m.problem.error!;
  const back = backHref.value;
  const channel = lastChannel.value;
  return (
    <section aria-labelledby="screen-title" class="problem">
      <div class="problem-mark" aria-hidden="true" />
      <Title>{title}</Title>
      <p role="alert">{body}</p>
      {detail && <p class="muted detail">{detail}</p>}
      <Notice />
      <div class="actions">
        {problem === "delivery_failed" && channel && (
          <button type="button" class="primary" disabled={busy.value} onClick={() => send(channel)}>
            {m.retry}
          </button>
        )}
        {problem === "delivery_failed" && (view.value?.available_channels.length ?? 0) > 1 && (
          <button type="button" class="secondary" onClick={otherChannel}>
            {m.code.other}
          </button>
        )}
        {problem === "error" && (
          <button type="button" class="primary" disabled={busy.value} onClick={retry}>
            {m.retry}
          </button>
        )}
        {back && (
          <a class="button secondary" href={back}>
            {m.back(projectName.value)}
          </a>
        )}
      </div>
    </section>
  );
}

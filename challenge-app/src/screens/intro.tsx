// "Why you are asked" (docs/challenge-app.md): the challenge type explained, what was noticed, and the ways forward.
import { t } from "../i18n/index.js";
import { begin, busy, deviceLimit, openChannels, signup, skip, view } from "../state.js";
import { isolate, Notice, Title } from "../ui.js";

// Reasons arrive as machine names (checks, risks, indicators); each known family gets one plain sentence.
// Order matters: the first pattern that matches names the family.
const REASON_FAMILIES: [RegExp, string][] = [
  [/travel/, "impossible_travel"],
  [/vpn|proxy|tor|anonym|hosting/, "anonymous"],
  [/new_(fingerprint|device)/, "new_device"],
  [/new_ip/, "new_ip"],
  [/device_count|device_limit|sharing/, "devices"],
  [/user_count|linked|multi_account/, "shared"],
  [/velocity|event_count/, "velocity"],
  [/bot|automation/, "bot"],
];

export function Intro() {
  const m = t.value;
  const v = view.value!;
  const type = v.challenge.type ?? "default";
  const [title, body] = m.intro[type] ?? m.intro.default!;
  const families = new Set<string>();
  for (const reason of v.challenge.reasons ?? []) {
    const hit = REASON_FAMILIES.find(([re]) => re.test(reason.toLowerCase()));
    if (hit && m.reasons[hit[1]]) families.add(hit[1]);
  }
  const offersSignup = type === "account_sharing" && !!v.signup_url;
  // One place to send the code: say where, and send it on the button (no one-option choice screen).
  const only = openChannels.value.length === 1 ? openChannels.value[0] : undefined;
  return (
    <section aria-labelledby="screen-title">
      <Title>{title}</Title>
      <p>{body}</p>
      {type === "account_sharing" && <p>{m.limit(deviceLimit.value)}</p>}
      {families.size > 0 && (
        <>
          <h2>{m.noticed}</h2>
          <ul class="reasons">
            {[...families].map((f) => (
              <li key={f}>{m.reasons[f]}</li>
            ))}
          </ul>
        </>
      )}
      {only && <p id="send-to">{m.channel.sendTo(isolate(only.destination))}</p>}
      <Notice />
      <div class="actions">
        <button type="button" class="primary" onClick={begin} disabled={busy.value} aria-describedby={only ? "send-to" : undefined}>
          {only ? m.channel.send : m.continue}
        </button>
        {v.allow_skip && (
          <button type="button" class="secondary" onClick={skip} disabled={busy.value}>
            {m.skip}
          </button>
        )}
      </div>
      {offersSignup && (
        <div class="aside">
          <p id="not-owner">{m.notOwner}</p>
          <button type="button" class="secondary" aria-describedby="not-owner" onClick={signup} disabled={busy.value}>
            {m.signup}
          </button>
        </div>
      )}
    </section>
  );
}

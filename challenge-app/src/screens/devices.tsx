// Account sharing (docs/challenges.md, docs/challenge-app.md): the verified owner sees the account's devices and logs out the ones they do
// not use until the account is within its device limit, then continues. Two devices of one model and browser look
// alike by name, so each also says when it was added and last seen, and the place and address it was last seen from;
// "Log out all other devices" leaves only the one in hand.
import type { Device } from "@tessera/sdk/contract";
import type { Messages } from "../i18n/en.js";
import { lang, t } from "../i18n/index.js";
import { busy, complete, countedDevices, deviceLimit, devices, kick, kickOthers, skip, view } from "../state.js";
import { Notice, Title } from "../ui.js";

// Largest unit first: "3 days ago" rather than "72 hours ago".
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 31_536_000],
  ["month", 2_592_000],
  ["week", 604_800],
  ["day", 86_400],
  ["hour", 3_600],
  ["minute", 60],
];

function ago(iso: string | undefined): string | null {
  const at = iso ? Date.parse(iso) : Number.NaN;
  if (Number.isNaN(at)) return null;
  const seconds = Math.round((at - Date.now()) / 1000);
  const format = new Intl.RelativeTimeFormat(lang.value, { numeric: "auto" });
  for (const [unit, size] of UNITS) if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  return format.format(0, "minute");
}

export const describe = (d: Device, m: Messages) =>
  m.devices.on(d.info.browser ?? m.devices.unknown, [d.info.os, d.info.os_version].filter(Boolean).join(" ") || m.devices.unknown);

/** "Stockholm, Sweden": the city and country of the device's last address, when known. */
const placeName = (d: Device) => [d.last_location?.city, d.last_location?.country].filter(Boolean).join(", ");

export function Devices() {
  const m = t.value;
  // Every device listed counts, this one included (the server's count): "within the limit" means Continue works.
  const listed = devices.value;
  const limit = deviceLimit.value;
  const over = countedDevices.value - limit;

  const onKick = async (d: Device, index: number) => {
    await kick(d, describe(d, m));
    // The pressed button is gone: move focus to the next log-out button, else to Continue.
    const buttons = document.querySelectorAll<HTMLButtonElement>(".device button");
    (buttons[Math.min(index, buttons.length - 1)] ?? document.getElementById("continue"))?.focus();
  };

  const others = listed.filter((d) => !d.current).length;

  return (
    <section aria-labelledby="screen-title">
      <Title>{m.devices.title}</Title>
      <p>{m.devices.status(countedDevices.value, limit)}</p>
      <p class={over > 0 ? "state over" : "state within"}>{over > 0 ? m.devices.over(over) : m.devices.within}</p>
      {listed.length === 0 ? (
        <p>{m.devices.none}</p>
      ) : (
        <ul class="devices">
          {listed.map((d, i) => {
            const what = describe(d, m);
            const seen = ago(d.last_seen_at);
            const added = ago(d.createdAt);
            const place = placeName(d);
            return (
              <li class={d.current ? "device current" : "device"} key={d.id}>
                <div class="device-text">
                  <span class="device-name">
                    {m.devices.type[d.type] ?? d.type} · {what}
                  </span>
                  {d.current && <span class="badge">{m.devices.current}</span>}
                  {(seen || added) && (
                    <span class="muted">{[seen && m.devices.seen(seen), added && m.devices.added(added)].filter(Boolean).join(" · ")}</span>
                  )}
                  {(place || d.last_ip) && (
                    <span class="muted">
                      {place && m.devices.place(place)}
                      {place && d.last_ip && " · "}
                      {d.last_ip && (
                        <>
                          {m.devices.address}{" "}
                          <bdi dir="ltr" class="ip">
                            {d.last_ip}
                          </bdi>
                        </>
                      )}
                    </span>
                  )}
                </div>
                {!d.current && (
                  <button
                    type="button"
                    class="secondary"
                    aria-label={m.devices.logoutLabel(what)}
                    disabled={busy.value}
                    onClick={() => onKick(d, i)}
                  >
                    {m.devices.logout}
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {others > 1 && (
        <button type="button" id="logout-others" class="secondary" disabled={busy.value} onClick={kickOthers}>
          {m.devices.logoutOthers}
        </button>
      )}
      <Notice />
      <div class="actions">
        <button type="button" id="continue" class="primary" disabled={busy.value || over > 0} onClick={complete}>
          {m.continue}
        </button>
        {view.value?.allow_skip && (
          <button type="button" class="secondary" disabled={busy.value} onClick={skip}>
            {m.skip}
          </button>
        )}
      </div>
    </section>
  );
}

// Device identity measured on the honest population (docs/identity.md): its visits go through the real HTTP API of one
// project, the customer's backend consumes what it lets in and its users pass the challenges they get; the service's
// answers (device, fingerprint, verdict) are compared with the truth of each visit, per browser family:
// - re-identification after drift: a browser that kept its token comes back after an update, a dock, a font, a trip,
//   a Brave restart — the same device (for the same account) and the same fingerprint as at its previous visit;
// - after a lost token (cleared storage, Safari's 7-day cap): the same device again (reported, no target);
// - merges: two distinct physical browsers given one device, or one fingerprint through a drift match (two browsers
//   with identical components share a fingerprint by definition: reported apart as collisions);
// - honest friction: first sign-ups (email only, as sign-up forms send them) challenged or denied; every honest visit.

import { distanceKm } from "../src/checks/travel.js";
import { fingerprintComponents, similarity } from "../src/fingerprint/index.js";
import { stableMismatch } from "../src/fingerprint/reid.js";
import { geo } from "../src/geo/index.js";
import { parseUserAgent } from "../src/pipeline/identity.js";
import { type AttackLabel, attackSchedule } from "./attacks.js";
import { DAY, type Harness, type Outcome, type Project } from "./harness.js";
import { type PoisonFigures, type PoisonTarget, poisonSchedule, poisonTargets, type SharedVisit } from "./poison.js";
import { GROUPS, type Group, type HonestVisit, honestTraffic, type PopulationOptions } from "./population/honest.js";
import { chance, int, pick, stream } from "./population/random.js";

/** Components as the SDK sends them (each value wrapped). */
const wired = (c: Record<string, unknown>) => Object.fromEntries(Object.entries(c).map(([k, v]) => [k, { value: v }]));

/** Where each time zone's people live: a home and an office are in the person's own region, not across the country. */
const TZ_CITY: Record<string, { lat: number; lon: number }> = {
  "America/New_York": { lat: 40.7, lon: -74 },
  "America/Chicago": { lat: 41.9, lon: -87.6 },
  "America/Los_Angeles": { lat: 34.05, lon: -118.2 },
  "Europe/London": { lat: 51.5, lon: -0.1 },
  "Europe/Paris": { lat: 48.9, lon: 2.35 },
  "Europe/Berlin": { lat: 52.5, lon: 13.4 },
  "Europe/Madrid": { lat: 40.4, lon: -3.7 },
  "America/Sao_Paulo": { lat: -23.5, lon: -46.6 },
  "Asia/Tokyo": { lat: 35.7, lon: 139.7 },
  "Asia/Kolkata": { lat: 22.6, lon: 88.4 },
  "Australia/Sydney": { lat: -33.9, lon: 151.2 },
};
const nearCache = new Map<string, string[]>();
/**
 * The addresses of `pool` within `km` of `anchor`'s geolocation (the anchor at least): a trip's hotels and cafés are in
 * the region the trip went to, not anywhere in the country on one day.
 */
const aroundCache = new Map<string, string[]>();
function around(pool: string[], anchor: string, km: number): string[] {
  let out = aroundCache.get(anchor);
  if (!out) {
    const a = geo().lookup(anchor);
    out =
      a.latitude !== undefined && a.longitude !== undefined
        ? pool.filter((ip) => {
            const g = geo().lookup(ip);
            return (
              g.latitude !== undefined &&
              g.longitude !== undefined &&
              distanceKm({ lat: a.latitude as number, lon: a.longitude as number }, { lat: g.latitude, lon: g.longitude }) < km
            );
          })
        : [];
    if (!out.length) out = [anchor];
    aroundCache.set(anchor, out);
  }
  return out;
}

function nearby(pool: string[], country: string, tz: string): string[] {
  const key = `${country}|${tz}`;
  let out = nearCache.get(key);
  if (!out) {
    const city = TZ_CITY[tz];
    out = city
      ? pool.filter((ip) => {
          const g = geo().lookup(ip);
          return g.latitude !== undefined && g.longitude !== undefined && distanceKm(city, { lat: g.latitude, lon: g.longitude }) < 700;
        })
      : [];
    if (out.length < 5) out = pool;
    nearCache.set(key, out);
  }
  return out;
}

/** Visits of a group and those with friction (challenged, denied or restricted). */
export interface Friction {
  visits: number;
  friction: number;
}
export interface AttackFigures {
  n: number;
  caught: number;
  policies: Map<string, number>;
}

export interface FamilyFigures {
  family: string;
  visits: number;
  driftN: number;
  driftSameDevice: number;
  driftSameFingerprint: number;
  lostN: number;
  lostSameDevice: number;
  deviceMerges: number;
  fingerprintMerges: number;
  fingerprintCollisions: number;
  signups: number;
  signupFriction: number;
  /** Of those, on a browser a household really shares (the repeat-trial policy counting its other accounts). */
  signupFrictionShared: number;
  friction: number;
}

/**
 * The families re-identification is reported per (fingerprint/reid.ts reasons per the same): what FingerprintJS can
 * tell of a browser depends on its engine and OS far more than on its brand.
 */
export const REID_CLASSES = [
  "desktop Chromium",
  "desktop Firefox",
  "Safari macOS",
  "iPhone/iPad",
  "Android",
  "Brave",
  "privacy (Firefox RFP)",
] as const;

export function reidClassOf(b: HonestVisit["browser"]): string {
  const s = b.state;
  if (s.browser === "brave") return "Brave";
  if (s.browser === "firefox" && s.rfp) return "privacy (Firefox RFP)";
  const os = b.model.os;
  if (os === "ios" || os === "ipados") return "iPhone/iPad";
  if (os === "android") return "Android";
  if (s.browser === "safari") return "Safari macOS";
  if (s.browser === "firefox") return "desktop Firefox";
  return "desktop Chromium";
}

export interface IdentityReport {
  label: string;
  people: number;
  visits: number;
  /** Logins first tried with a wrong password or a mistyped login, before the visit that works (not visits). */
  slips: number;
  families: FamilyFigures[];
  /** The same figures per re-identification family (REID_CLASSES). */
  classes: FamilyFigures[];
  total: FamilyFigures;
  frictionPolicies: Map<string, number>;
  /** Honest visits, for the threat section's precision. */
  outcomes: Array<{ verdict: string; policy?: string }>;
  users: string[];
  /** Honest friction per group and overall ("all"): challenged, denied or restricted visits over visits. */
  groups: Map<Group | "all", Friction>;
  /** Friction by policy and group, for tuning. */
  groupPolicies: Map<string, number>;
  attacks: Map<AttackLabel, AttackFigures>;
  /** With `poison`: the honest friction on each poisoned network that day (poison.ts). */
  poison: PoisonFigures[];
}

/**
 * How often a login is first tried wrong, from the same browser seconds before: a wrong password (the account's own id;
 * nothing consumed), and a mistyped login (an id never met). Assumed rates, not measured here: a forgotten or mistyped
 * password is common on real login forms, a mistyped identifier rarer.
 */
const SLIPS = { password: 0.07, login: 0.02 };

const blocked = (verdict: string) => verdict === "challenge" || verdict === "deny" || verdict === "challenge_and_restrict";

function empty(family: string): FamilyFigures {
  return {
    family,
    visits: 0,
    driftN: 0,
    driftSameDevice: 0,
    driftSameFingerprint: 0,
    lostN: 0,
    lostSameDevice: 0,
    deviceMerges: 0,
    fingerprintMerges: 0,
    fingerprintCollisions: 0,
    signups: 0,
    signupFriction: 0,
    signupFrictionShared: 0,
    friction: 0,
  };
}

/**
 * `poison`: "measure" picks the networks a stranger would poison (poison.ts) and measures the honest friction there
 * without sending anything (the other figures unchanged); "send" adds the stranger's requests to the schedule.
 */
export async function measureIdentity(
  h: Harness,
  label: string,
  opts: PopulationOptions & { attacks?: boolean; poison?: "measure" | "send" },
): Promise<IdentityReport> {
  const p: Project = await h.project(`population ${label}`);
  const ipOf = new Map<string, string>();
  const stable = (key: string, pool: string[]) => {
    let ip = ipOf.get(key);
    if (!ip) {
      ip = pick(stream(opts.seed, "ip", key), pool);
      ipOf.set(key, ip);
    }
    return ip;
  };
  const ipFor = (v: HonestVisit): string => {
    const n = v.network;
    const residential = h.residential.get(n.country) ?? h.residential.get("US") ?? [];
    if (n.kind === "cellular") {
      // The person's carrier (one of the country's), another address of its pool each session.
      const carriers = [...(h.carriers.get(n.country)?.values() ?? [])];
      if (!carriers.length) return stable(n.id, residential);
      const carrier = pick(stream(opts.seed, "carrier", n.id), carriers);
      return pick(stream(opts.seed, "cell", n.id, n.session), carrier);
    }
    if (n.kind === "vpn" && n.id === "consumer-vpn") {
      // A subscription to one VPN provider: any of its exits, in any country it serves, each session.
      const vpns = [...h.providers.values()].filter((x) => x.length >= 4 && geo().lookup(x[0] as string).network === "vpn");
      const provider = vpns.length ? pick(stream(opts.seed, "vpn-provider", v.person.id), vpns) : h.byKind.vpn;
      return pick(stream(opts.seed, "vpn", v.person.id, n.session), provider);
    }
    if (n.kind === "vpn") {
      // A company's gateway: several exits in one provider's ASN, any of them each session.
      const gateways = [...h.providers.values()].filter((x) => x.length >= 4);
      const exits = pick(stream(opts.seed, "gateway", n.id), gateways).slice(0, 4);
      return pick(stream(opts.seed, "exit", n.id, v.person.id, n.session), exits);
    }
    // A trip goes to one region of the country visited: its hotels and cafés within 300 km of where it went (a place
    // anywhere in the country each day, 1,500 km apart within hours, is faster than any airliner: no traveller does that).
    // A home or an office: in the person's region.
    if (n.kind === "travel") return stable(n.id, around(residential, stable(`${v.person.id}-trip-to-${n.country}`, residential), 300));
    return stable(n.id, nearby(residential, n.country, v.person.home.tz));
  };
  const families = new Map<string, FamilyFigures>();
  const fam = (f: string) => {
    const x = families.get(f) ?? empty(f);
    families.set(f, x);
    return x;
  };
  const classes = new Map<string, FamilyFigures>(REID_CLASSES.map((c) => [c, empty(c)]));
  const classOfBrowser = new Map<string, string>();
  const cls = (key: string) => {
    const c = classOfBrowser.get(key) ?? "?";
    const x = classes.get(c) ?? empty(c);
    classes.set(c, x);
    return x;
  };
  // The truth behind the service's ids: physical browsers per device and per fingerprint.
  const browsersOfDevice = new Map<string, Set<string>>();
  const browsersOfFingerprint = new Map<string, Set<string>>();
  const driftMerged = new Set<string>();
  const lastDevice = new Map<string, string>();
  const lastFingerprint = new Map<string, string>();
  const lastComponents = new Map<string, Record<string, unknown>>();
  const frictionPolicies = new Map<string, number>();
  const familyOfBrowser = new Map<string, string>();
  const history = new Map<string, unknown[]>();
  const outcomes: IdentityReport["outcomes"] = [];
  const groups = new Map<Group | "all", Friction>([...GROUPS, "all" as const].map((g) => [g, { visits: 0, friction: 0 }]));
  const groupPolicies = new Map<string, number>();
  const attacks = new Map<AttackLabel, AttackFigures>();
  const known = new Set<string>();
  // The networks honest people share, for the stranger's targeting (poison.ts).
  const sharedOf = (v: HonestVisit): SharedVisit | undefined => {
    const n = v.network;
    const base = { day: v.day, at: v.at, action: v.action, tz: v.timezone };
    if (n.kind === "home" && n.id.startsWith("campus-")) return { ...base, kind: "campus NAT", key: n.id, ip: ipFor(v) };
    if (n.kind === "work" && n.id.startsWith(`work-${opts.seed}-`)) return { ...base, kind: "office NAT", key: n.id, ip: ipFor(v) };
    if (n.kind === "vpn" && n.id === "consumer-vpn") {
      const ip = ipFor(v);
      return { ...base, kind: "consumer VPN", key: `AS${geo().lookup(ip).asn}`, ip };
    }
    if (n.kind === "cellular") {
      const ip = ipFor(v);
      return { ...base, kind: "carrier", key: `AS${geo().lookup(ip).asn}`, ip };
    }
    return undefined;
  };
  const targets: PoisonTarget[] = [];
  if (opts.poison) {
    const shared: SharedVisit[] = [];
    for (const v of honestTraffic(opts)) {
      const x = sharedOf(v);
      if (x) shared.push(x);
    }
    targets.push(...poisonTargets(shared, opts.days));
  }
  const poison: PoisonFigures[] = targets.map((target) => ({
    target,
    visits: 0,
    friction: 0,
    policies: new Map(),
    forged: 0,
    forgedChallenged: 0,
  }));
  const figuresOf = (t: PoisonTarget) => poison.find((x) => x.target === t) as PoisonFigures;
  const schedule = [
    ...(opts.attacks ? attackSchedule(h, { seed: opts.seed, days: opts.days, start: opts.start }) : []),
    ...(opts.poison === "send"
      ? poisonSchedule(opts.seed, targets, (t, out) => {
          const x = figuresOf(t);
          x.forged++;
          if (out.verdict !== "allow") x.forgedChallenged++;
        })
      : []),
  ].sort((a, b) => a.at - b.at);
  let next = 0;
  const ctx = {
    h,
    p,
    known: () => [...known],
    record(label: AttackLabel, out: Outcome, note?: string) {
      const a = attacks.get(label) ?? { n: 0, caught: 0, policies: new Map<string, number>() };
      attacks.set(label, a);
      a.n++;
      if (out.verdict !== "allow") {
        a.caught++;
        a.policies.set(out.policy ?? "?", (a.policies.get(out.policy ?? "?") ?? 0) + 1);
      } else if (process.env.SCENARIO_DEBUG)
        console.log("missed", label, note ?? "", `day ${Math.floor((h.now() - opts.start) / DAY)}`, JSON.stringify(out.checks));
    },
  };
  let visits = 0;
  let slips = 0;

  for (const v of honestTraffic(opts)) {
    // Attacks due before this visit run first: the service sees both kinds of traffic at once.
    while (next < schedule.length && (schedule[next]?.at ?? Infinity) <= v.at) {
      const step = schedule[next++];
      if (!step) break;
      h.setClock(step.at);
      await step.run(ctx);
    }
    // People slip: a login is now and then first tried with a wrong password (the backend refuses it and consumes
    // nothing) or with a mistyped login (an account never met, left unconfirmed), seconds before the one that works,
    // from the same browser. Only the login that works is counted as the visit.
    if (v.action === "login" && v.user) {
      const m = stream(opts.seed, "slip", v.browser.key, v.at);
      const wrongPassword = chance(m, SLIPS.password);
      const mistyped = !wrongPassword && chance(m, SLIPS.login);
      if (wrongPassword || mistyped) {
        h.setClock(v.at - int(m, 5, 40) * 1000);
        await h.client(p, {
          action: "login",
          userAgent: v.userAgent,
          components: v.components,
          token: v.token,
          timezone: v.timezone,
          ip: ipFor(v),
          user: mistyped ? `${v.user}${pick(m, ["x", "1", "_", "s"])}` : v.user,
        });
        slips++;
      }
    }
    h.setClock(v.at);
    classOfBrowser.set(v.browser.key, reidClassOf(v.browser));
    const f = fam(v.browser.family);
    const c = cls(v.browser.key);
    const out: Outcome = await h.client(p, {
      action: v.action,
      userAgent: v.userAgent,
      components: v.components,
      token: v.token,
      timezone: v.timezone,
      ip: ipFor(v),
      ...(v.user ? { user: v.user } : {}),
      email: v.email,
    });
    visits++;
    f.visits++;
    if (process.env.SCENARIO_TRACE)
      console.log(
        "trace",
        v.person.id,
        v.day,
        v.action,
        v.network.kind,
        v.browser.key,
        out.verdict,
        out.policy ?? "",
        out.checks?.ip_country,
        out.checks?.is_new_country,
        v.timezone,
        out.checks?.distance_from_trusted_km,
        v.token ?? "-",
        out.checks?.device_id,
        out.checks?.fingerprint_id,
        out.checks?.device_count,
        `browser_travel=${out.checks?.browser_impossible_travel}`,
        new Date(v.at).toISOString(),
      );
    outcomes.push({ verdict: out.verdict, policy: out.policy });
    if (targets.length) {
      const x = sharedOf(v);
      const t = x && targets.find((t) => t.kind === x.kind && t.key === x.key && t.day === v.day);
      if (t) {
        const f = figuresOf(t);
        f.visits++;
        if (out.verdict !== "allow") {
          f.friction++;
          f.policies.set(out.policy ?? "?", (f.policies.get(out.policy ?? "?") ?? 0) + 1);
          if (process.env.SCENARIO_WHY) {
            const c = out.checks ?? {};
            const keys = ["is_new_user", "is_provisional_user", "is_new_fingerprint", "is_new_network", "is_new_provider"];
            const counts = Object.entries(c).filter(([k, n]) => /^(ip|network|provider)_/.test(k) && typeof n === "number" && n > 0);
            console.log(
              "poisoned",
              t.kind,
              t.key,
              v.person.id,
              v.action,
              out.policy,
              [...keys.map((k) => [k, c[k]]), ...counts].map((x) => x.join("=")).join(" "),
            );
          }
        }
      }
    }
    for (const g of [...v.groups, "all" as const]) {
      const x = groups.get(g) as Friction;
      x.visits++;
      if (out.verdict !== "allow") {
        x.friction++;
        const k = `${g}: ${out.policy ?? "?"}`;
        if (process.env.SCENARIO_WHY && g === "all") {
          const c = out.checks ?? {};
          const keys = [
            "is_new_country",
            "is_new_fingerprint",
            "is_new_device",
            "is_new_ip",
            "is_new_network",
            "ip_is_anonymous",
            "ip_is_hosting",
            "is_new_provider",
            "is_new_timezone",
            "is_new_language",
            "distance_from_trusted_km",
            "impossible_travel",
            "timezone_mismatch",
            "timezone_in_ip_country",
            "device_count",
            "concurrent_sessions",
            "session_impossible_travel",
            "device_user_count",
            "fingerprint_user_count",
            "ip_user_count",
          ];
          console.log(
            "why",
            v.person.id,
            `day ${v.day}`,
            v.person.signsUpOn === null ? "existing" : `signs-up-day-${v.person.signsUpOn}`,
            out.policy,
            v.action,
            v.network.kind,
            v.browser.family,
            v.truth.private ? "private" : "",
            v.truth.tokenLost ? "lost" : "",
            v.truth.firstVisit ? "first" : "",
            v.groups.join("+").replace(/ /g, "_"),
            keys.map((k) => `${k}=${String(c[k])}`).join(" "),
          );
        }
        groupPolicies.set(k, (groupPolicies.get(k) ?? 0) + 1);
      }
    }
    if (blocked(out.verdict)) {
      f.friction++;
      frictionPolicies.set(out.policy ?? "?", (frictionPolicies.get(out.policy ?? "?") ?? 0) + 1);
    }
    if (v.truth.firstSignup) {
      f.signups++;
      if (blocked(out.verdict)) {
        f.signupFriction++;
        if (v.browser.users.length > 1) f.signupFrictionShared++;
        if (process.env.SCENARIO_DEBUG)
          console.log(
            "first sign-up challenged",
            v.browser.family,
            out.policy,
            v.browser.users.length,
            JSON.stringify(out.checks).match(/"(fingerprint|device)_user_count":\d+/g),
          );
      }
    }
    // The customer's backend: a sign-up or login let in is consumed; a challenged one is passed, then consumed.
    if (v.action !== "access") {
      if (out.verdict === "allow" || out.verdict === "restrict") await h.consume(p, out.id);
      else if (out.challenge && (await h.completeChallenge(p, out.challenge.id))) await h.consume(p, out.id);
    } else if (out.challenge && out.challenge.type !== "account_sharing") await h.completeChallenge(p, out.challenge.id);
    if (v.user && v.action !== "signup") known.add(v.user);

    const who = `${v.browser.key}#${v.person.id}`;
    if (process.env.SCENARIO_DEBUG)
      history.set(v.browser.key, [
        ...(history.get(v.browser.key) ?? []),
        [v.day, v.action, v.token, out.device, out.verdict, v.truth.private, v.truth.tokenLost],
      ]);
    familyOfBrowser.set(v.browser.key, v.browser.family);
    if (out.device) {
      const set = browsersOfDevice.get(out.device) ?? new Set();
      set.add(v.browser.key);
      browsersOfDevice.set(out.device, set);
    }
    if (out.fingerprint) {
      const set = browsersOfFingerprint.get(out.fingerprint.id) ?? new Set();
      // A drift match (confidence below 1) merges when the record it moves is another browser's now: that browser's
      // latest fingerprint. A browser that finds the record later by its exact components presents identical
      // components (a collision), and one that has since moved to a record of its own no longer holds it.
      const id = out.fingerprint.id;
      if (out.fingerprint.confidence < 1 && [...set].some((b) => b !== v.browser.key && lastFingerprint.get(b) === id)) {
        driftMerged.add(v.browser.key);
        if (process.env.SCENARIO_DEBUG) console.log("drift match onto another browser's fingerprint", v.browser.key, [...set].join(" "));
      }
      set.add(v.browser.key);
      browsersOfFingerprint.set(out.fingerprint.id, set);
    }
    // Re-identification is measured for browsers of one person, on their second visit on: a household's shared
    // tablet is one device per account by design (an account never takes another's device).
    if (!v.truth.private && !v.truth.firstVisit && v.browser.users.length === 1 && lastDevice.has(who)) {
      if (v.truth.drift.length > 0 && !v.truth.tokenLost) {
        f.driftN++;
        c.driftN++;
        if (out.device && lastDevice.get(who) === out.device) {
          f.driftSameDevice++;
          c.driftSameDevice++;
        } else if (process.env.SCENARIO_DEBUG)
          console.log("another device after drift", v.browser.family, v.truth.drift, JSON.stringify(history.get(v.browser.key)?.slice(-3)));
        if (out.fingerprint && lastFingerprint.get(v.browser.key) === out.fingerprint.id) {
          f.driftSameFingerprint++;
          c.driftSameFingerprint++;
        } else if (process.env.SCENARIO_DEBUG) {
          const now = fingerprintComponents(wired(v.components), parseUserAgent(v.userAgent).info);
          const before = lastComponents.get(v.browser.key);
          const holders = out.fingerprint ? [...(browsersOfFingerprint.get(out.fingerprint.id) ?? [])] : [];
          console.log(
            "another fingerprint after drift",
            v.browser.family,
            v.browser.key,
            v.truth.drift,
            out.fingerprint?.confidence,
            before ? `similarity ${similarity(now, before).toFixed(3)} stable ${stableMismatch(now, before) ?? "-"}` : "",
            `held by ${holders.join(" ") || "nobody"}`,
            `last ${lastFingerprint.get(v.browser.key)} now ${out.fingerprint?.id}`,
          );
        }
      }
      if (v.truth.tokenLost && v.action !== "signup") {
        f.lostN++;
        c.lostN++;
        if (out.device && lastDevice.get(who) === out.device) {
          f.lostSameDevice++;
          c.lostSameDevice++;
        } else if (process.env.SCENARIO_DEBUG)
          console.log(
            "lost token not re-identified",
            v.browser.family,
            v.action,
            v.truth.drift,
            v.browser.key,
            `user ${v.user ?? "-"}`,
            `device ${out.device ?? "-"} was ${lastDevice.get(who)}`,
            `fp ${out.fingerprint?.id ?? "-"} confidence ${out.fingerprint?.confidence ?? "-"}`,
            `held by ${out.fingerprint ? [...(browsersOfFingerprint.get(out.fingerprint.id) ?? [])].join(" ") : "-"}`,
            (() => {
              const now = fingerprintComponents(wired(v.components), parseUserAgent(v.userAgent).info);
              const before = lastComponents.get(v.browser.key);
              if (!before) return "no earlier components";
              const changed = Object.keys({ ...now, ...before }).filter(
                (k) => JSON.stringify((now as Record<string, unknown>)[k]) !== JSON.stringify((before as Record<string, unknown>)[k]),
              );
              return `similarity ${similarity(now, before).toFixed(3)} stable ${stableMismatch(now, before) ?? "-"} changed ${changed.join(",")}`;
            })(),
          );
      }
    }
    if (!v.truth.private) {
      if (process.env.SCENARIO_DEBUG)
        lastComponents.set(v.browser.key, fingerprintComponents(wired(v.components), parseUserAgent(v.userAgent).info));
      if (out.device) lastDevice.set(who, out.device);
      if (out.fingerprint) lastFingerprint.set(v.browser.key, out.fingerprint.id);
    }
  }

  const familyOf = (key: string) => familyOfBrowser.get(key) ?? "?";
  // Counted per physical browser: one that shared a device (or a fingerprint) with another browser at least once.
  const merged = new Set<string>();
  for (const browsers of browsersOfDevice.values()) if (browsers.size > 1) for (const b of browsers) merged.add(b);
  for (const b of merged) {
    fam(familyOf(b)).deviceMerges++;
    cls(b).deviceMerges++;
  }
  for (const b of driftMerged) {
    fam(familyOf(b)).fingerprintMerges++;
    cls(b).fingerprintMerges++;
  }
  const collided = new Set<string>();
  for (const browsers of browsersOfFingerprint.values()) if (browsers.size > 1) for (const b of browsers) collided.add(b);
  for (const b of collided) {
    fam(familyOf(b)).fingerprintCollisions++;
    cls(b).fingerprintCollisions++;
  }
  const list = [...families.values()].sort((a, b) => b.visits - a.visits);
  const total = list.reduce((t, x) => {
    for (const k of Object.keys(t) as Array<keyof FamilyFigures>) if (k !== "family") (t[k] as number) += x[k] as number;
    return t;
  }, empty("all"));
  h.advance(DAY);
  for (const step of schedule.slice(next)) {
    h.setClock(step.at);
    await step.run(ctx);
  }
  return {
    label,
    people: opts.people,
    visits,
    slips,
    families: list,
    classes: [...classes.values()],
    total,
    frictionPolicies,
    outcomes,
    users: [],
    groups,
    groupPolicies,
    attacks,
    poison,
  };
}

const ratio = (a: number, n: number) => (n === 0 ? "    –" : (a / n).toFixed(3));
const pct = (a: number, n: number) => (n === 0 ? "    –" : `${((100 * a) / n).toFixed(1)}%`);

const DRIFT_TARGET = 0.99;
const LOST_DESKTOP_TARGET = 0.9;

/** The report's table, one line per browser family and a total; `ok` when every target holds. */
export function formatIdentity(r: IdentityReport): { lines: string[]; ok: boolean } {
  const lines = [
    `${r.label}: ${r.people} people, ${r.visits} visits (and ${r.slips} logins first tried with a wrong password or a mistyped login)`,
    "family                    visits | drift: n  device  fingerprint | lost token: n  device | merges: device  fp(drift) | fp collisions | first sign-ups: n  challenged (own browser) | all visits challenged",
  ];
  let ok = true;
  for (const x of [...r.families, r.total]) {
    const reid = x.driftN ? Math.min(x.driftSameDevice, x.driftSameFingerprint) / x.driftN : 1;
    if (reid < 0.95 || x.deviceMerges > 0 || x.fingerprintMerges > 0) ok = false;
    lines.push(
      `${x.family.padEnd(24)} ${String(x.visits).padStart(7)} | ${String(x.driftN).padStart(8)}  ${ratio(x.driftSameDevice, x.driftN)}  ${ratio(x.driftSameFingerprint, x.driftN).padStart(11)} | ${String(x.lostN).padStart(13)}  ${ratio(x.lostSameDevice, x.lostN)} | ${String(x.deviceMerges).padStart(14)}  ${String(x.fingerprintMerges).padStart(9)} | ${String(x.fingerprintCollisions).padStart(13)} | ${String(x.signups).padStart(17)}  ${pct(x.signupFriction, x.signups).padStart(10)} (${pct(x.signupFriction - x.signupFrictionShared, x.signups)}) | ${pct(x.friction, x.visits).padStart(20)}`,
    );
  }
  // The target is on first sign-ups from a person's own browser: on a browser the household shares, its other accounts
  // are really there, and whether several accounts on one browser are challenged is the repeat-trial policy's choice.
  if (r.total.signups && (r.total.signupFriction - r.total.signupFrictionShared) / r.total.signups > 0.01) ok = false;
  // Re-identification per family: with the token kept (after a drift) and without it (cleared storage, Safari's cap).
  lines.push("re-identification     drift n  same (device and fp) | lost token n  same device | browsers merged (device, fp drift)");
  for (const x of r.classes) {
    const same = Math.min(x.driftSameDevice, x.driftSameFingerprint);
    // The product's targets (docs/identity.md): a drifted browser that kept its token is itself at 0.99, a desktop
    // browser that lost it is found again at 0.9; a phone of a model is not told from another unit by its components.
    if (x.driftN && same / x.driftN < DRIFT_TARGET) ok = false;
    if (x.lostN && !/iPhone|Android/.test(x.family) && x.lostSameDevice / x.lostN < LOST_DESKTOP_TARGET) ok = false;
    lines.push(
      `  ${x.family.padEnd(22)} ${String(x.driftN).padStart(5)}  ${ratio(same, x.driftN).padStart(20)} | ${String(x.lostN).padStart(12)}  ${ratio(x.lostSameDevice, x.lostN).padStart(11)} | ${String(x.deviceMerges).padStart(8)}  ${String(x.fingerprintMerges).padStart(3)}`,
    );
  }
  const policies = [...r.frictionPolicies].sort((a, b) => b[1] - a[1]).map(([p, n]) => `${p} ${n}`);
  if (policies.length) lines.push(`honest visits challenged or denied, by policy: ${policies.join(", ")}`);
  return { lines, ok };
}

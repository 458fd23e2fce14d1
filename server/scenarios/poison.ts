// A stranger poisoning the counts that honest people share (docs/detection.md, "What a stranger on your network can
// do"). Someone on a network the population uses (the university residence's NAT, the busiest office's NAT, the
// consumer VPN provider most of its subscribers' visits go through, the carrier most of its phones' visits use) sends
// forged /v3/client/* requests with the public client id through one day, every 4 to 10 minutes from two hours
// before that network's first honest login or sign-up of the day to its last (within any client rate limit): logins naming made-up accounts, logins
// naming real ones (a stranger on a campus knows classmates' logins), and sign-ups with made-up addresses, each from a
// browser claiming a common build (a real model's components, no visitor token: never seen), one in five with audio
// and canvas of its own drawing. It is no attack with a recall: its measure is the honest friction it causes among
// the honest visits on that network that day (run.ts, SCENARIO_POISON=1: both sets replayed with it, compared with the
// same visits without it).
import { type AttackContext, type AttackStep, antiDetect, realBrowser } from "./attacks.js";
import type { Outcome } from "./harness.js";
import { MIN } from "./harness.js";
import { chance, int, pick, type Rng, stream } from "./population/random.js";

export const POISON_KINDS = ["campus NAT", "office NAT", "consumer VPN", "carrier"] as const;
export type PoisonKind = (typeof POISON_KINDS)[number];

/** An honest visit on a shared network, as the stranger's targeting sees it. */
export interface SharedVisit {
  kind: PoisonKind;
  /** The network: the NAT's id, or the VPN provider's or carrier's ASN. */
  key: string;
  ip: string;
  day: number;
  at: number;
  action: string;
  tz: string;
}

export interface PoisonTarget {
  kind: PoisonKind;
  key: string;
  day: number;
  from: number;
  to: number;
  /** The addresses honest visits there came from (a NAT's one; a provider's or a carrier's exits). */
  ips: string[];
  tz: string;
}

/** What the stranger caused on one network: the honest visits there that day, and its own requests. */
export interface PoisonFigures {
  target: PoisonTarget;
  visits: number;
  friction: number;
  policies: Map<string, number>;
  forged: number;
  forgedChallenged: number;
}

/** Per kind, the network and day (not the first nor the last) with the most honest logins and sign-ups. */
export function poisonTargets(visits: readonly SharedVisit[], days: number): PoisonTarget[] {
  const out: PoisonTarget[] = [];
  for (const kind of POISON_KINDS) {
    const byKeyDay = new Map<string, SharedVisit[]>();
    for (const v of visits) {
      if (v.kind !== kind || v.day < 1 || v.day > days - 2) continue;
      const k = `${v.key}|${v.day}`;
      byKeyDay.set(k, [...(byKeyDay.get(k) ?? []), v]);
    }
    const weight = (vs: SharedVisit[]) => vs.filter((v) => v.action !== "access").length;
    const best = [...byKeyDay.entries()].sort((a, b) => weight(b[1]) - weight(a[1]) || a[0].localeCompare(b[0]))[0];
    if (!best || weight(best[1]) === 0) continue;
    const [first] = best[1];
    if (!first) continue;
    const acting = best[1].filter((v) => v.action !== "access");
    const tzs = new Map<string, number>();
    for (const v of best[1]) tzs.set(v.tz, (tzs.get(v.tz) ?? 0) + 1);
    out.push({
      kind,
      key: first.key,
      day: first.day,
      from: Math.min(...acting.map((v) => v.at)) - 120 * MIN,
      to: Math.max(...acting.map((v) => v.at)),
      ips: [...new Set(visits.filter((v) => v.kind === kind && v.key === first.key).map((v) => v.ip))].sort(),
      tz: [...tzs.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? "UTC",
    });
  }
  return out;
}

const FIRST = ["anna", "ben", "chloe", "david", "emma", "felix", "grace", "hugo", "ines", "jack", "lea", "marco", "nina", "omar"];
const LAST = ["smith", "martin", "garcia", "muller", "rossi", "silva", "tanaka", "kumar", "brown", "dubois", "lopez", "wilson"];
const madeUp = (s: Rng) => `${pick(s, FIRST)}.${pick(s, LAST)}${int(s, 1, 99)}`;

/** The stranger's requests on each target, scheduled in time; `tally` receives each outcome with its target. */
export function poisonSchedule(
  seed: number,
  targets: readonly PoisonTarget[],
  tally: (t: PoisonTarget, out: Outcome) => void,
): AttackStep[] {
  const steps: AttackStep[] = [];
  for (const [i, t] of targets.entries()) {
    const s = stream(seed, "poison", t.kind);
    for (let at = t.from, k = 0; at <= t.to; at += int(s, 4, 10) * MIN, k++) {
      const real = realBrowser(7_000_000 + seed * 100 + i * 1000 + k, t.tz, undefined, chance(s, 0.5));
      const b = k % 5 === 4 ? { ...antiDetect(s, real), timezone: t.tz } : real;
      const ip = pick(s, t.ips);
      const kind = k % 3;
      const name = madeUp(s);
      const r = s();
      steps.push({
        at,
        run: async (ctx: AttackContext) => {
          const known = ctx.known();
          const out =
            kind === 2
              ? await ctx.h.client(ctx.p, { action: "signup", ...b, ip, email: `${name}@gmail.com` })
              : await ctx.h.client(ctx.p, {
                  action: "login",
                  ...b,
                  ip,
                  user: kind === 1 && known.length ? (known[Math.floor(r * known.length)] as string) : name,
                });
          tally(t, out);
        },
      });
    }
  }
  return steps;
}

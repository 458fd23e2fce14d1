// Fact: what a sign-up farm leaves on an address and on a device (docs/detection.md, "Sign-up farms"), counted over
// the day on the velocity counters (store/detection.ts, dayCounts). Client sign-ups, and never-seen browsers' logins.
// - Noisy siblings: never-seen browsers signing up from this IP (or its /24, /48, or its cloud, VPN or proxy provider's
//   ASN) within the day with this browser's exact build (user agent, brand, platform, OS version, architecture) but
//   another audio output, or with its GPU too but another canvas. Real browsers of one build give one audio output,
//   and one GPU of one build one canvas; an anti-detect browser draws both anew for every profile. Counted only while
//   this build's never-seen browsers are half or more of the never-seen browsers that signed up there that day: a
//   farm's are all of them, while a build whose CPUs differ is a few browsers among a residence's or an office's (and
//   Brave, which adds noise to both by design, is a build of its own: its brand). And only where this browser itself
//   looks generated: its audio output is compared with its siblings' only when no other never-seen browser (sign-ups
//   and logins together, over the deployment) presented it with its build within 30 days, its canvas only when none
//   presented it with its GPU. A real browser's values are every browser of its build's, so a stranger sending
//   forged requests of the most common build with drawn audio and canvas, on an address, a /24 or a provider that
//   honest people share, cannot make their browsers siblings of a farm (docs/decisions/noisy-siblings-poisoning.md).
// - A device's sign-ups: sign-ups from this identifying fingerprint within the day, on any network, popular or not
//   (counting only: a fingerprint never makes a login familiar), and how many of them came from another network than
//   this one: one computer clearing its storage between accounts and alternating its home line and its phone's
//   connection. A fingerprint that is not identifying (a phone model's) is every owner's: not counted.
// - Reused tokens: visitor tokens that signed up two accounts or more with exactly these components at this IP within
//   the day. A phone shop sets up each customer's new phone on its own token; one phone opening account after account
//   keeps its token for some of them.
// - Noisy siblings of a login: the same among never-seen browsers logging in (into any account) from this IP, its /24
//   (/48) or its provider's ASN within the day, counted apart from the sign-ups': an anti-detect browser's run on a
//   combo list draws a new profile for every attempt on one build, so from its second attempt there its build shows
//   two audio outputs.
import { normaliseComponents, stableStringify } from "../fingerprint/index.js";
import { perIpKey } from "../geo/ip.js";
import { providerAsn } from "../signals/network.js";
import { CHURN_WINDOWS } from "./churn.js";
import { defineFacts } from "./define.js";

export interface SignupFarm {
  /** Noisy siblings of this never-seen browser on its IP, its network and its provider, within the day. */
  siblings: { ip: number; network: number; provider: number };
  /** On a login: noisy siblings among the day's never-seen browsers logging in, the most on its IP, network or provider. */
  login: number;
  /** Sign-ups from this identifying fingerprint within the day, this one included, and those from another network. */
  device: { signups: number; elsewhere: number };
  /** Visitor tokens that signed up two accounts or more with exactly these components at this IP within the day. */
  reusedTokens: number;
}

const NONE: SignupFarm = { siblings: { ip: 0, network: 0, provider: 0 }, login: 0, device: { signups: 0, elsewhere: 0 }, reusedTokens: 0 };

type Scope = "ip" | "network" | "provider";

/**
 * What a noisy sibling is compared on: the exact build (user agent, brand, platform, OS version, architecture), its GPU,
 * its audio output and its canvas. The brand keeps Brave (same user agent as Chrome, audio and canvas noised by
 * design) from being one build with Chrome.
 */
function buildOf(userAgent: string | undefined, components: Parameters<typeof normaliseComponents>[0] | undefined) {
  const c = normaliseComponents(components ?? {});
  const uad = (c.userAgentData ?? {}) as { brands?: unknown; platformVersion?: unknown; architecture?: unknown };
  const gl = (c.webGlBasics ?? {}) as { rendererUnmasked?: unknown; renderer?: unknown };
  const build = stableStringify([userAgent ?? "", uad.brands ?? null, c.platform, uad.platformVersion, uad.architecture, c.architecture]);
  const gpu = stableStringify([build, gl.rendererUnmasked || gl.renderer || ""]);
  return { build, gpu, audio: stableStringify(c.audio ?? null), canvas: stableStringify(c.canvas ?? null) };
}

/**
 * The day's counts of noisy siblings at each scope, under `kind` (sign-ups and logins are counted apart): the values
 * this never-seen browser adds, and how to read the siblings from the counts. Counted only while this build's
 * never-seen browsers are half or more of those counted there that day.
 */
function siblingValues(kind: string, scopes: ReadonlyArray<readonly [Scope, string | undefined]>, b: ReturnType<typeof buildOf>) {
  // Whether this browser's own audio output and canvas are real browsers' (OWN_VALUES): counted once per never-seen
  // browser, sign-ups and logins together, over the deployment.
  const values: Record<string, string> = {};
  const counted: string[] = [];
  if (scopes.length > 0) {
    values.ownAudio = `farm-own-audio|${b.build}|${b.audio}`;
    values.ownCanvas = `farm-own-canvas|${b.gpu}|${b.canvas}`;
    counted.push("ownAudio", "ownCanvas");
  }
  for (const [scope, at] of scopes) {
    if (!at) continue;
    values[`${scope}.new`] = `${kind}-new|${at}`;
    values[`${scope}.build`] = `${kind}-build|${at}|${b.build}`;
    values[`${scope}.audio`] = `${kind}-audio|${at}|${b.build}|${b.audio}`;
    values[`${scope}.gpu`] = `${kind}-gpu|${at}|${b.gpu}`;
    values[`${scope}.canvas`] = `${kind}-canvas|${at}|${b.gpu}|${b.canvas}`;
    counted.push(`${scope}.new`, `${scope}.build`, `${scope}.audio`, `${scope}.gpu`, `${scope}.canvas`);
  }
  // Another never-seen browser presented this audio output with this build (this canvas with this GPU): a real
  // browser's, so siblings that differ in it say nothing about this one (a stranger's forged requests least of all).
  const generated = (n: Record<string, number>) => ({ audio: (n.ownAudio ?? 0) <= 1, canvas: (n.ownCanvas ?? 0) <= 1 });
  const sib = (n: Record<string, number>, scope: Scope) => {
    const [all, same] = [n[`${scope}.new`] ?? 0, n[`${scope}.build`] ?? 0];
    if (2 * same < all) return 0;
    const own = generated(n);
    return Math.max(
      own.audio ? same - (n[`${scope}.audio`] ?? 0) : 0,
      own.canvas ? (n[`${scope}.gpu`] ?? 0) - (n[`${scope}.canvas`] ?? 0) : 0,
    );
  };
  return { values, counted, sib, longer: { names: ["ownAudio", "ownCanvas"], windows: OWN_VALUES } };
}

/**
 * How long a real browser's audio output and canvas are remembered: day-wide buckets over a month (a build's major
 * version lasts about four weeks). The counters' "hour" window is twelve buckets (store/detection.ts, churnKey), so
 * twelve days make each bucket a day.
 */
const DAY = 24 * 60 * 60 * 1000;
const OWN_VALUES = { hour: 12 * DAY, day: 30 * DAY };

export const signupFarm = defineFacts({
  name: "signupFarm",
  load: async ({ input, identity, signals, repos }): Promise<SignupFarm> => {
    if (input.source !== "client" || !input.ip) return NONE;
    const fp = identity.fingerprint;
    if (!fp) return NONE;
    const env = input.env.id;
    const asn = providerAsn(signals.geolocation);
    // Per IP: an IPv6 client is its /64 (geo/ip.ts, perIpKey), whichever address of it it takes.
    const ip = perIpKey(input.ip);
    const scopes = [
      ["ip", ip],
      ["network", signals.network?.prefix],
      ["provider", asn === undefined ? undefined : `asn:${asn}`],
    ] as const;
    if (input.action === "login") {
      // Never-seen identifying browsers logging in: nothing is counted for the others (a phone model's components are
      // every owner's; a browser seen before is no new profile).
      if (!fp.identifying || !fp.isNew) return NONE;
      const s = siblingValues("farm-login", scopes, buildOf(input.userAgent, input.signals.components));
      const n = await repos.detection.dayCounts(env, s.values, s.counted, input.at, CHURN_WINDOWS, s.longer);
      return { ...NONE, login: Math.max(s.sib(n, "ip"), s.sib(n, "network"), s.sib(n, "provider")) };
    }
    if (input.action !== "signup") return NONE;
    const token = input.signals.visitor_token;
    const reused = `farm-reused|${fp.row.exact_hash}|${ip}`;
    // This token's sign-ups here today: its second makes it a reused one (counted once, on that second sign-up).
    const again = token
      ? (await repos.detection.dayCounts(env, { t: `farm-token|${fp.row.exact_hash}|${ip}|${token}` }, ["t"], input.at, CHURN_WINDOWS))
          .t === 2
      : false;
    if (!fp.identifying) {
      const r = await repos.detection.dayCounts(env, { reused }, again ? ["reused"] : [], input.at, CHURN_WINDOWS);
      return { ...NONE, reusedTokens: r.reused ?? 0 };
    }
    const network = signals.network?.prefix;
    const values: Record<string, string> = {
      reused,
      device: `farm-device|${fp.row.id}`,
      deviceHere: `farm-device|${fp.row.id}|${network ?? ip}`,
    };
    const counted = again ? ["reused", "device", "deviceHere"] : ["device", "deviceHere"];
    // Noisy siblings: this browser's build among the day's never-seen browsers signing up at each scope.
    const s = siblingValues("farm", fp.isNew ? scopes : [], buildOf(input.userAgent, input.signals.components));
    Object.assign(values, s.values);
    counted.push(...s.counted);
    const n = await repos.detection.dayCounts(env, values, counted, input.at, CHURN_WINDOWS, s.longer);
    return {
      siblings: { ip: s.sib(n, "ip"), network: s.sib(n, "network"), provider: s.sib(n, "provider") },
      login: 0,
      device: { signups: n.device ?? 0, elsewhere: (n.device ?? 0) - (n.deviceHere ?? 0) },
      reusedTokens: n.reused ?? 0,
    };
  },
});

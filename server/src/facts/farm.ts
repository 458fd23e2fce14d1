// Fact: what a sign-up farm leaves on an address and on a device (docs/detection.md, "Sign-up farms"), counted over
// the day on the velocity counters (store/detection.ts, dayCounts). Client sign-ups only.
// - Noisy siblings: never-seen browsers signing up from this IP (or its /24, /48) within the day with this browser's
//   exact build (user agent, platform, OS version, architecture) but another audio output, or with its GPU too but
//   another canvas. Real browsers of one build give one audio output, and one GPU of one build one canvas; an
//   anti-detect browser draws both anew for every profile. Counted only while this build's never-seen browsers are
//   half or more of the never-seen browsers that signed up there that day: a farm's are all of them, while Brave (which
//   adds noise to both by design) or a build whose CPUs differ is a few browsers among a residence's or an office's.
// - A device's sign-ups: sign-ups from this identifying fingerprint within the day, on any network, popular or not
//   (counting only: a fingerprint never makes a login familiar), and how many of them came from another network than
//   this one: one computer clearing its storage between accounts and alternating its home line and its phone's
//   connection. A fingerprint that is not identifying (a phone model's) is every owner's: not counted.
// - Reused tokens: visitor tokens that signed up two accounts or more with exactly these components at this IP within
//   the day. A phone shop sets up each customer's new phone on its own token; one phone opening account after account
//   keeps its token for some of them.
import { normaliseComponents, stableStringify } from "../fingerprint/index.js";
import { CHURN_WINDOWS } from "./churn.js";
import { defineFacts } from "./define.js";

export interface SignupFarm {
  /** Noisy siblings of this never-seen browser on its IP and on its network, within the day. */
  siblings: { ip: number; network: number };
  /** Sign-ups from this identifying fingerprint within the day, this one included, and those from another network. */
  device: { signups: number; elsewhere: number };
  /** Visitor tokens that signed up two accounts or more with exactly these components at this IP within the day. */
  reusedTokens: number;
}

const NONE: SignupFarm = { siblings: { ip: 0, network: 0 }, device: { signups: 0, elsewhere: 0 }, reusedTokens: 0 };

export const signupFarm = defineFacts({
  name: "signupFarm",
  load: async ({ input, identity, signals, repos }): Promise<SignupFarm> => {
    if (input.source !== "client" || input.action !== "signup" || !input.ip) return NONE;
    const fp = identity.fingerprint;
    if (!fp) return NONE;
    const env = input.env.id;
    const token = input.signals.visitor_token;
    const reused = `farm-reused|${fp.row.exact_hash}|${input.ip}`;
    // This token's sign-ups here today: its second makes it a reused one (counted once, on that second sign-up).
    const again = token
      ? (
          await repos.detection.dayCounts(
            env,
            { t: `farm-token|${fp.row.exact_hash}|${input.ip}|${token}` },
            ["t"],
            input.at,
            CHURN_WINDOWS,
          )
        ).t === 2
      : false;
    if (!fp.identifying) {
      const r = await repos.detection.dayCounts(env, { reused }, again ? ["reused"] : [], input.at, CHURN_WINDOWS);
      return { ...NONE, reusedTokens: r.reused ?? 0 };
    }
    const c = normaliseComponents(input.signals.components ?? {});
    const uad = (c.userAgentData ?? {}) as { brands?: unknown; platformVersion?: unknown; architecture?: unknown };
    const gl = (c.webGlBasics ?? {}) as { rendererUnmasked?: unknown; renderer?: unknown };
    const build = stableStringify([input.userAgent ?? "", c.platform, uad.platformVersion, uad.architecture, c.architecture]);
    const gpu = stableStringify([build, gl.rendererUnmasked || gl.renderer || ""]);
    const audio = stableStringify(c.audio ?? null);
    const canvas = stableStringify(c.canvas ?? null);
    const network = signals.network?.prefix;
    const values: Record<string, string> = {
      reused,
      device: `farm-device|${fp.row.id}`,
      deviceHere: `farm-device|${fp.row.id}|${network ?? input.ip}`,
    };
    const counted = again ? ["reused", "device", "deviceHere"] : ["device", "deviceHere"];
    const noisy = fp.isNew;
    for (const [scope, at] of [
      ["ip", input.ip],
      ["network", network],
    ] as const) {
      if (!at || !noisy) continue;
      values[`${scope}.new`] = `farm-new|${at}`;
      values[`${scope}.build`] = `farm-build|${at}|${build}`;
      values[`${scope}.audio`] = `farm-audio|${at}|${build}|${audio}`;
      values[`${scope}.gpu`] = `farm-gpu|${at}|${gpu}`;
      values[`${scope}.canvas`] = `farm-canvas|${at}|${gpu}|${canvas}`;
      counted.push(`${scope}.new`, `${scope}.build`, `${scope}.audio`, `${scope}.gpu`, `${scope}.canvas`);
    }
    const n = await repos.detection.dayCounts(env, values, counted, input.at, CHURN_WINDOWS);
    const sib = (scope: string) => {
      const [all, same] = [n[`${scope}.new`] ?? 0, n[`${scope}.build`] ?? 0];
      if (2 * same < all) return 0;
      return Math.max(same - (n[`${scope}.audio`] ?? 0), (n[`${scope}.gpu`] ?? 0) - (n[`${scope}.canvas`] ?? 0));
    };
    return {
      siblings: { ip: sib("ip"), network: sib("network") },
      device: { signups: n.device ?? 0, elsewhere: (n.device ?? 0) - (n.deviceHere ?? 0) },
      reusedTokens: n.reused ?? 0,
    };
  },
});

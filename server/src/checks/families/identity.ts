// Checks of who the request is (docs/identity.md): a new user, a browser or device new to the user, how old the
// account is, whether the backend vouches for it, whether its contacts are verified or contradicted.
import { signedInBrowser } from "../../facts/browser.js";
import { type CheckContext, defineCheck } from "../define.js";

const DAY = 24 * 3600 * 1000;

/**
 * New for this user: no device, a device first seen now, no user, a device of another user or detached from this one,
 * a device recognised by its fingerprint rather than found by the request's own visitor token, or one the user never
 * signed in on (`facts.browser.device`: device_confirmations). The client id is public: a stranger's browser that merely
 * named the user is another user's device or none, and one whose login or sign-up naming the account was let in but
 * never vouched for (the backend did not consume it: a wrong password, an account that exists) joined the account
 * without being the user's; and the user's components are anyone's who ran a script on a page the user visited, so a
 * device recognised by them is the user's for counting and new for trust (docs/security.md, "Recognising a browser is
 * not trusting it").
 */
export function deviceIsNewForUser(c: Pick<CheckContext<readonly [typeof signedInBrowser]>, "identity" | "facts">): boolean {
  const user = c.identity.user;
  const device = c.identity.device;
  return (
    !device ||
    device.isNew ||
    !!device.recognised ||
    !user ||
    device.row.user_id !== user.id ||
    device.row.status === "detached" ||
    !c.facts.browser.device
  );
}

/**
 * A provisional user (docs/identity.md): first seen on a login, not yet confirmed by the backend; or the user this
 * login names for the first time.
 */
export const isProvisional = (c: Pick<CheckContext, "input" | "identity">): boolean =>
  c.identity.user ? c.identity.user.provisional === 1 : c.identity.userIsNew && c.input.action === "login";

export const checks = [
  defineCheck({
    name: "is_new_user",
    type: "boolean",
    doc: "The request names a user never evaluated before (its first evaluation).",
    reason: "new_user",
    compute: (c) => c.identity.userIsNew,
  }),
  defineCheck({
    name: "is_new_fingerprint",
    type: "boolean",
    doc: "A browser the user never signed in on (a known fingerprint of someone else's is still new); null for a backend evaluation that names no browser.",
    reason: "new_fingerprint",
    needs: [signedInBrowser],
    // New for this user: a browser the user never signed in on (a known fingerprint of someone else's is still new).
    // Signed in: the device found by the request's own visitor token is one the user signed in on, or had a trusted
    // evaluation with this fingerprint (facts/browser.ts). The client id is public: a stranger's browser that merely
    // named the user on a page stays new, or its login would skip what a new browser meets; and the user's components
    // are anyone's who ran a script on a page the user visited, so the user's own fingerprint on a new token (a device
    // recognised by it) is new too, until the backend vouches for that token. A fingerprint that is not identifying says
    // nothing by itself (every phone of a model shares it): the device decides. A backend evaluation naming no browser
    // (no `evaluation` or `fingerprint`) has none to judge: null, unknown, which `eq true` and `eq false` both leave
    // alone. A browser sending too little to fingerprint is new: stripping the components must not make a stranger
    // look familiar.
    compute: (c) => {
      const fp = c.identity.fingerprint;
      if (!fp) return c.input.source === "server" ? null : true;
      if (fp.isNew) return true;
      if (!c.identity.user) return false;
      const signedInDevice = !deviceIsNewForUser(c);
      if (!fp.identifying || fp.popular) return !signedInDevice;
      return !signedInDevice && !c.facts.browser.seen;
    },
  }),
  defineCheck({
    name: "is_new_device",
    type: "boolean",
    doc: "No device, a device first seen now, a device that is not this user's (another's, or detached from them), one recognised by its fingerprint on a token it does not carry, or one the user never signed in on (a login or sign-up let in that the backend never vouched for: docs/security.md).",
    reason: "new_device",
    needs: [signedInBrowser],
    compute: (c) => deviceIsNewForUser(c),
  }),
  defineCheck({
    name: "is_recognised_device",
    type: "boolean",
    doc: "The user's device recognised by its identifying fingerprint on a visitor token it does not carry: the user's own components on a new token (cleared storage, a private window, or someone who collected them on a page the user visited). Counted as the user's device, trusted as a new one (docs/security.md). A device recognised by components every unit of its model shares (an iPhone among the user's devices) does not set it: any such phone set to the user's zone presents them.",
    reason: "recognised_device",
    compute: (c) => !!c.identity.user && !!c.identity.device?.recognised && c.identity.fingerprint?.identifying === true,
  }),
  defineCheck({
    name: "user_age_days",
    type: "number",
    doc: "Whole days since the user was first seen (0 for a new user or none).",
    reason: { low: "new_account" },
    compute: (c) => (c.identity.user ? Math.floor((c.input.at - Number(c.identity.user.created_at)) / DAY) : 0),
  }),
  defineCheck({
    name: "fingerprint_confidence",
    type: "number",
    doc: "How sure the identity step is of the browser's fingerprint, 0 to 1 (0 without one).",
    reason: { low: "low_confidence" },
    compute: (c) => c.identity.fingerprint?.confidence ?? 0,
  }),
  defineCheck({
    name: "is_provisional_user",
    type: "boolean",
    doc: "A user first seen on a login and not yet confirmed by the backend (docs/identity.md), or named for the first time by this login.",
    reason: "unconfirmed_user",
    compute: (c) => isProvisional(c),
  }),
  defineCheck({
    name: "is_email_verified",
    type: "boolean",
    doc: "The user's email was verified by a code (a challenge).",
    reason: "email_verified",
    compute: (c) => c.identity.user?.email_verified === 1,
  }),
  defineCheck({
    name: "is_phone_verified",
    type: "boolean",
    doc: "The user's phone was verified by a code (a challenge).",
    reason: "phone_verified",
    compute: (c) => c.identity.user?.phone_verified === 1,
  }),
  defineCheck({
    name: "identity_verified",
    type: "boolean",
    doc: "The user is vouched for by the customer's backend: a valid user_token, or a server evaluation (docs/security.md).",
    reason: "identity_verified",
    // A backend names its users with its secret; a browser, with a valid user_token.
    compute: (c) => (c.input.source === "server" ? c.input.user !== undefined : c.input.identityVerified === true),
  }),
  defineCheck({
    name: "contact_mismatch",
    type: "boolean",
    doc: "A client evaluation claimed an email or phone other than the user's stored one (a strong sign of account takeover: docs/security.md).",
    reason: "contact_mismatch",
    // The browser named a contact other than the stored one: never written to the user (store/users.ts), kept here.
    compute: (c) => {
      const user = c.identity.user;
      if (c.input.source !== "client" || !user) return false;
      const { email, phone } = c.input;
      return (
        (email !== undefined && user.email !== null && email.toLowerCase() !== user.email.toLowerCase()) ||
        (phone !== undefined && user.phone !== null && phone !== user.phone)
      );
    },
  }),
] as const;

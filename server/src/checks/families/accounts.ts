// Checks of the accounts behind one browser or address (docs/identity.md): how many accounts used this browser, its
// visitor token, its exact components at this address, or this IP, and how many it logged into within the hour.
// Accounts, not provisional users: a login naming an account the backend never confirmed is an attempt (attempts.ts).
import { fingerprintAccounts, fingerprintIpUsers, ipUsers, tokenUsers } from "../../facts/accounts.js";
import { type CheckContext, defineCheck } from "../define.js";

/** How many distinct users, counting the current one, a set of user ids represents. */
function withCurrent(users: string[], current: string | undefined, isNewUser: boolean): number {
  const set = new Set(users);
  if (current) set.add(current);
  else if (isNewUser) return set.size + 1;
  return set.size;
}

/**
 * The request's account as account figures count it (docs/identity.md): a confirmed user, or a new account created
 * other than by a login. A provisional user (first seen on a login, not yet confirmed by the backend) is not an account.
 */
function countedAccount(c: Pick<CheckContext, "input" | "identity">): { id?: string; isNew: boolean } {
  const user = c.identity.user;
  if (user) return user.provisional === 1 ? { isNew: false } : { id: user.id, isNew: false };
  const creates = c.identity.userIsNew && (!!c.input.user || !!c.identity.emailKey);
  return { isNew: creates && c.input.action !== "login" };
}

export const checks = [
  defineCheck({
    name: "fingerprint_user_count",
    type: "number",
    doc: "Accounts (not provisional users) on this browser within three months: over its identifying, non-popular fingerprint, else the current account alone; and over its visitor token's devices. 0 without a fingerprint.",
    reason: "shared_fingerprint",
    needs: [fingerprintAccounts],
    compute: (c) => {
      if (!c.identity.fingerprint) return 0;
      const me = countedAccount(c);
      return withCurrent(
        c.facts.fingerprintAccounts.confirmed.filter((u) => u !== c.identity.user?.id),
        me.id,
        me.isNew,
      );
    },
  }),
  defineCheck({
    name: "fingerprint_accounts_tried",
    type: "number",
    doc: "Accounts logged into from this identifying fingerprint within the hour, known or not, confirmed or not, this login included (0 for a fingerprint that does not identify a browser: a phone model's is every owner's).",
    reason: "accounts_tried",
    needs: [fingerprintAccounts],
    compute: (c) => {
      const fp = c.identity.fingerprint;
      if (!fp?.identifying || fp.popular) return 0;
      const others = c.facts.fingerprintAccounts.triedSince.filter((u) => u !== c.identity.user?.id);
      const me = c.input.action === "login" && (c.identity.user || c.input.user) ? 1 : 0;
      return others.length + me;
    },
  }),
  defineCheck({
    name: "fingerprint_ip_user_count",
    type: "number",
    doc: "Accounts that used a browser with exactly this fingerprint from this IP within 7 days, this one included, identifying or not: a phone whose model every other phone shares still names one browser on one home's address once its storage is cleared.",
    reason: "shared_fingerprint_at_ip",
    needs: [fingerprintIpUsers],
    compute: (c) => {
      if (!c.identity.fingerprint || !c.input.ip) return 0;
      const me = countedAccount(c);
      return withCurrent(
        c.facts.fingerprintIpUsers.filter((u) => u !== c.identity.user?.id),
        me.id,
        me.isNew,
      );
    },
  }),
  defineCheck({
    name: "device_user_count",
    type: "number",
    doc: "Accounts behind the devices of this browser's visitor token, this one included (0 without a token).",
    reason: "shared_device",
    needs: [tokenUsers],
    compute: (c) => {
      if (!c.input.signals.visitor_token) return 0;
      const me = countedAccount(c);
      return withCurrent(
        c.facts.tokenUsers.filter((u) => u !== c.identity.user?.id),
        me.id,
        me.isNew,
      );
    },
  }),
  defineCheck({
    name: "ip_user_count",
    type: "number",
    doc: "Distinct users evaluated from this IP within the hour, this one included (0 without an IP).",
    reason: "shared_ip",
    needs: [ipUsers],
    compute: (c) => (c.input.ip ? withCurrent(c.facts.ipUsers, c.identity.user?.id ?? (c.input.user ? "__new__" : undefined), false) : 0),
  }),
] as const;

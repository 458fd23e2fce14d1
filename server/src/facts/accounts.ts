// Facts: the accounts behind this request's browser and address (docs/identity.md): the users of the IP, of the
// browser's fingerprint and of its visitor token, and the confirmed users of these exact components at this IP. On
// PostgreSQL the first three reads and the user's devices go out as one statement (store/user-lists.ts).
import { perIpKey } from "../geo/ip.js";
import type { Identity } from "../pipeline/identity.js";
import type { Repos } from "../store/repos.js";
import { defineFacts } from "./define.js";

export const ACCOUNT_WINDOWS = {
  /** Users per IP: an hour. */
  ipUsers: 60 * 60 * 1000,
  /** Accounts per browser: three months covers a trial period and its repeats. */
  fingerprintUsers: 90 * 24 * 60 * 60 * 1000,
  /** Accounts per fingerprint (identifying or not) on one address: a week, about as long as a home keeps its address. */
  fingerprintIpUsers: 7 * 24 * 60 * 60 * 1000,
  /**
   * Accounts logged into from one browser: a combo list's run lasts minutes to hours; a family computer's accounts
   * are used on other evenings.
   */
  accountsTried: 60 * 60 * 1000,
};

/** The stored fingerprint that links accounts: only an identifying one that is not popular (docs/identity.md). */
export function linkingFingerprint(identity: Identity): string | undefined {
  const fingerprint = identity.fingerprint;
  const fp = fingerprint && !fingerprint.isNew ? fingerprint.row.id : undefined;
  return fp && fingerprint?.identifying && !fingerprint.popular ? fp : undefined;
}

/** Distinct users evaluated from this IP within the hour. */
export const ipUsers = defineFacts({
  name: "ipUsers",
  load: async ({ input, repos }) =>
    input.ip ? repos.history.ipUsers(input.env.id, perIpKey(input.ip), input.at - ACCOUNT_WINDOWS.ipUsers) : [],
});

/**
 * The accounts of the linking fingerprint: its confirmed users within three months (`confirmed`), and every user,
 * provisional included, that logged in from it within the hour (`triedSince`).
 */
export const fingerprintAccounts = defineFacts({
  name: "fingerprintAccounts",
  load: async ({ input, identity, repos }) => {
    const linking = linkingFingerprint(identity);
    if (!linking) return { confirmed: [] as string[], triedSince: [] as string[] };
    return repos.fingerprints.users(
      input.env.id,
      linking,
      input.at - ACCOUNT_WINDOWS.fingerprintUsers,
      input.at - ACCOUNT_WINDOWS.accountsTried,
    );
  },
});

/** Confirmed accounts on browsers with exactly this fingerprint's components from this IP within a week. */
export const fingerprintIpUsers = defineFacts({
  name: "fingerprintIpUsers",
  load: async ({ input, identity, repos }) =>
    identity.fingerprint && input.ip
      ? repos.fingerprints.confirmedUsersAtIp(
          input.env.id,
          identity.fingerprint.row.exact_hash,
          perIpKey(input.ip),
          input.at - ACCOUNT_WINDOWS.fingerprintIpUsers,
        )
      : [],
});

/** The accounts behind the visitor token's devices, provisional users left out (the current user is counted apart). */
export const tokenUsers = defineFacts({
  name: "tokenUsers",
  load: async ({ input, identity, repos }) => {
    const token = input.signals.visitor_token;
    return token ? confirmedTokenUsers(repos, input.env.id, token, identity) : [];
  },
});

async function confirmedTokenUsers(repos: Repos, env: string, token: string, identity: Identity): Promise<string[]> {
  const users = await repos.devices.tokenUsers(env, token, identity.tokenDevices);
  const others = users.filter((u) => u !== identity.user?.id);
  if (others.length === 0) return users;
  const confirmed = new Set(await repos.users.confirmedAmong(others));
  return users.filter((u) => u === identity.user?.id || confirmed.has(u));
}

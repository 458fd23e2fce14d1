// Identity step (docs/identity.md): who (user), which browser (fingerprint) and which hardware (device) this request
// comes from. The visitor token anchors the device: a live token resolves to its own device, and its fingerprint
// follows the browser's drift. Without a live token, only an identifying fingerprint is matched, exactly, and it
// brings back only the named user's own device: a drifted browser without its token is a new device, since a
// neighbour's machine of the same model drifts no differently. A device found so is *recognised*, not trusted: any page
// the user visits can collect the components, so it is the same device for counting and linking, and a new one for
// every check that lets a login in, until the backend vouches for the request (docs/identity.md, "Recognition and
// trust"). Reads only; persistIdentity writes what it implies.
import type { DeviceType } from "@tessera/sdk/contract";
import { UAParser } from "ua-parser-js";
import { BoundedMap } from "../caches.js";
import {
  coarseKey,
  fingerprintComponents,
  IDENTIFYING_BITS,
  identifyingBits,
  measuredComponents,
  measuredHash,
  ParsedComponentsCache,
  similarity,
  TOKEN_MATCH,
} from "../fingerprint/index.js";
import { reidentify, stableMismatch, TOKEN_STABLE_MATCH } from "../fingerprint/reid.js";
import { networkOf } from "../geo/ip.js";
import { newId } from "../ids.js";
import { type DeviceRow, KEPT_BROWSER_MS } from "../store/devices.js";
import type { FingerprintHead, FingerprintRow } from "../store/fingerprints.js";
import type { Repos } from "../store/repos.js";
import type { UserRow } from "../store/users.js";
import { accountEmailKey } from "./account-email.js";
import type { EvaluationInput } from "./context.js";

export interface Identity {
  user?: UserRow;
  userIsNew: boolean;
  /** The request names no user but an email: the account is the one this key finds, or a new one (docs/identity.md). */
  emailKey?: string;
  /** An email-only account that the named (new) user takes over: the browser of its sign-up now names its id. */
  claim?: boolean;
  fingerprint?: {
    /** What the evaluation reads of the fingerprint (a known one's components stay in the store). */
    row: FingerprintHead;
    confidence: number;
    isNew: boolean;
    /** A new fingerprint's whole row, to insert (set exactly when isNew). */
    created?: FingerprintRow;
    /** Enough identifying bits to tell this machine from others of its model (fingerprint/IDENTIFYING_BITS). */
    identifying: boolean;
    /** Presented by many tokens on many networks (FingerprintsRepo.setPopular): links no accounts, merges no devices. */
    popular: boolean;
    /** It reached popularity with this request (persistIdentity records it). */
    becamePopular?: boolean;
    /** Set on a drift match of the browser's own fingerprint: the components to move it to (no other live token has it). */
    drift?: { exact_hash: string; coarse_key: string; components: string };
  };
  /**
   * `retoken`: the device was found by the token it carried before (a private window's swapped them): it carries the
   * request's again. `recognised`: found by its fingerprint, not by this request's visitor token (cleared storage, a
   * private window, or someone replaying the user's components): the same device for counting and linking, a new one
   * for trust, and its token moves to the request's only once the backend vouches for the evaluation (store/history.ts,
   * confirmDevice).
   */
  device?: {
    row: DeviceRow;
    isNew: boolean;
    wasDetached: boolean;
    retoken?: boolean;
    recognised?: boolean;
    /**
     * A recognised device's browser token, when it is not the request's: a backend evaluation reusing a client
     * evaluation that only recognised its device carries that evaluation's token (`pending_token`), which the device
     * takes once this evaluation is vouched for.
     */
    pendingToken?: string;
  };
  /**
   * The device whose browser these components are a drift of (its token's, or the named user's found through the drift
   * without a token): its fingerprint becomes the request's even when the device was only recognised, as the record
   * itself would have moved had no other live token's device held it back (persistIdentity).
   */
  follows?: string;
  /** The devices sharing the request's visitor token, most recently seen first (DevicesRepo.byToken). */
  tokenDevices?: DeviceRow[];
  deviceInfo: Record<string, string>;
  deviceType: DeviceType;
}

/** Parsed user agents by string: a few thousand distinct ones cover almost all traffic, and parsing is regex-heavy. */
const uaCache = new BoundedMap<string, { info: Record<string, string>; type: DeviceType }>(5000);

export function parseUserAgent(ua: string | undefined): { info: Record<string, string>; type: DeviceType } {
  if (!ua) return { info: {}, type: "computer" };
  const cached = uaCache.get(ua);
  if (cached) return cached;
  const parsed = parseUserAgentUncached(ua);
  Object.freeze(parsed.info); // shared by every request with this user agent
  uaCache.set(ua, parsed);
  return parsed;
}

function parseUserAgentUncached(ua: string): { info: Record<string, string>; type: DeviceType } {
  const r = new UAParser(ua).getResult();
  const info: Record<string, string> = {};
  if (r.browser.name) info.browser = r.browser.name;
  if (r.browser.version) info.browser_version = r.browser.version;
  if (r.engine.name) info.engine = r.engine.name;
  if (r.os.name) info.os = r.os.name;
  if (r.os.version) info.os_version = r.os.version;
  if (r.device.vendor) info.device_vendor = r.device.vendor;
  if (r.device.model) info.device_model = r.device.model;
  if (r.device.type) info.device_type = r.device.type;
  const type: DeviceType =
    r.device.type === "mobile" || r.device.type === "wearable" ? "mobile" : r.device.type === "tablet" ? "tablet" : "computer";
  return { info, type };
}

const parsedComponents = new ParsedComponentsCache();

/** The candidates' parsed components: from the cache, the misses in one query. */
async function parsedCandidates(
  repos: Repos,
  envId: string,
  keys: Array<{ id: string; exact_hash: string }>,
): Promise<Array<{ id: string; parsed: Record<string, unknown> }>> {
  const out: Array<{ id: string; parsed: Record<string, unknown> }> = [];
  const missing: string[] = [];
  for (const k of keys) {
    const hit = parsedComponents.get(k.id, k.exact_hash);
    if (hit) out.push({ id: k.id, parsed: hit });
    else missing.push(k.id);
  }
  for (const row of await repos.fingerprints.componentsOf(envId, missing)) {
    const parsed = parsedRow(row);
    // A corrupt row is no candidate.
    if (parsed) out.push({ id: row.id, parsed });
  }
  return out;
}

/** A visitor token is live while its device was seen within this window: another browser never takes its records. */
export const LIVE_TOKEN_MS = 30 * 24 * 3600 * 1000;
/** Devices read per fingerprint to decide its popularity and ownership (more devices than this: surely shared). */
const FINGERPRINT_DEVICES = 32;

/**
 * The fingerprint row of a device, with its components parsed when asked (cached by id and hash): a browser presenting
 * its own fingerprint exactly, most requests, compares hashes and never parses them. The row holds the components.
 */
async function fingerprintOf(
  repos: Repos,
  envId: string,
  id: string,
): Promise<{ row: FingerprintRow; parsed: () => Record<string, unknown> | undefined } | undefined> {
  const row = await repos.fingerprints.findById(envId, id);
  if (!row) return undefined;
  return { row, parsed: () => parsedRow(row) };
}

/** A fingerprint row's components parsed (undefined: a corrupt row), from the cache or parsed and kept. */
function parsedRow(row: Pick<FingerprintRow, "id" | "exact_hash" | "components">): Record<string, unknown> | undefined {
  const hit = parsedComponents.get(row.id, row.exact_hash);
  if (hit) return hit;
  try {
    const parsed = JSON.parse(row.components) as Record<string, unknown>;
    parsedComponents.set(row.id, row.exact_hash, parsed);
    return parsed;
  } catch {
    return undefined;
  }
}

/**
 * Whether a fingerprint belongs to this browser alone: no device of another visitor token that is live (seen within
 * LIVE_TOKEN_MS) has it as its fingerprint. Only then may a drift match move it (docs/identity.md).
 *
 * The browser's tokens are the request's and the device's own, now and before it was re-tokened: the devices that carry
 * or carried any of them (one per account the browser named: a mistyped login, a household's accounts), and those the
 * request's token was recognised on, are this browser, whichever token it presents now (a private window recognised
 * as the device, cleared storage). Nor is a token this browser replaced: a device of another token, of the same
 * account as this browser's device (or, like it, of none), last seen before this browser's device first appeared (a
 * browser that lost its token never presents it again). Nor is a token that lived one sitting on pages naming no one
 * (a private window's page view that found the record; vouchedOwners in store/devices.ts does not count it as a person
 * either). Another account's browser with the same components, seen since this one appeared, still holds the record
 * back, as does any anonymous one kept for half a day.
 */
async function ownedAlone(
  repos: Repos,
  envId: string,
  fingerprintId: string,
  device: Pick<DeviceRow, "id" | "visitor_token" | "previous_token" | "user_id" | "created_at">,
  token: string | undefined,
  at: number,
): Promise<boolean> {
  const rows = await repos.devices.byFingerprint(envId, fingerprintId, FINGERPRINT_DEVICES);
  const mine = new Set([token, device.visitor_token, device.previous_token].filter((t): t is string => !!t));
  return rows.every(
    (d) =>
      d.id === device.id ||
      (!!d.visitor_token && mine.has(d.visitor_token)) ||
      (!!d.previous_token && mine.has(d.previous_token)) ||
      (!!token && d.recognised_token === token) ||
      d.last_seen_at == null ||
      at - Number(d.last_seen_at) > LIVE_TOKEN_MS ||
      (d.user_id === device.user_id && Number(d.last_seen_at) < Number(device.created_at)) ||
      (d.user_id === null &&
        Number(d.last_seen_at) - Number(d.created_at) < KEPT_BROWSER_MS &&
        at - Number(d.created_at) >= KEPT_BROWSER_MS),
  );
}

export async function resolveIdentity(repos: Repos, input: EvaluationInput): Promise<Identity> {
  const envId = input.env.id;
  const { info, type } = parseUserAgent(input.userAgent);
  const id: Identity = { userIsNew: false, deviceInfo: info, deviceType: type };
  const token = input.signals.visitor_token;
  // Devices this token was only recognised on (by their fingerprint, store/devices.ts): the same browser for counting
  // and linking, never the token's own for anything that trusts it.
  const ownToken = (d: DeviceRow) => !!token && (d.visitor_token === token || d.previous_token === token);

  // PostgreSQL: the token's devices, and their fingerprints as the request's hash finds them, are read with the
  // user's lookup, in one statement (store/joined-reads.ts); the owner they are filtered for is known once the user is.
  const tokenRead = token ? repos.devices.tokenRead(envId, token) : undefined;
  const normalised = fingerprintComponents(input.signals.components, info);
  const measured = !input.linkedFingerprintId && Object.keys(normalised).length > 0 ? measuredComponents(normalised) : undefined;
  const hash = measured && measuredHash(measured);
  const ownRead = tokenRead && hash !== undefined && token ? repos.fingerprints.ownOfTokenRead(envId, token, hash) : undefined;
  let emailAccount: UserRow | undefined;
  if (input.user) {
    // With an email, the account it names is read in the same statement (wanted only when the user is new).
    const found = input.email
      ? await repos.users.findByExternalOrEmailKey(envId, input.user, accountEmailKey(input.email))
      : { user: await repos.users.findByExternal(envId, input.user), emailAccount: undefined };
    if (found.user) id.user = found.user;
    else {
      id.userIsNew = true;
      emailAccount = found.emailAccount;
    }
  } else if (input.email) {
    id.emailKey = accountEmailKey(input.email);
    const user = await repos.users.findByEmailKey(envId, id.emailKey);
    if (user) id.user = user;
    else id.userIsNew = true;
  }
  // The devices the request's device is found among (resolveDevice): the named account's, or any for a request naming
  // no one (null: a new account's, so unowned ones only).
  const owner = input.user || input.email ? (id.user?.id ?? null) : undefined;
  if (token) id.tokenDevices = await repos.devices.byToken(envId, token, { recognisedFor: owner, read: tokenRead });
  // The browser of an email-only sign-up names the account's new id: the same account, not a second one.
  if (
    emailAccount &&
    emailAccount.external_id === emailAccount.id &&
    id.tokenDevices?.some((d) => d.user_id === emailAccount?.id && ownToken(d))
  ) {
    id.user = emailAccount;
    id.userIsNew = false;
    id.claim = true;
  }
  // The token's devices are one browser; the named account's own among them tells its fingerprint first (a login mistyped
  // seconds before gave the token a newer device of another account, whose record must not replace the account's).
  const tokenDevice = id.tokenDevices?.find((d) => id.user !== undefined && d.user_id === id.user.id) ?? id.tokenDevices?.[0];

  if (input.linkedFingerprintId) {
    // A backend evaluation reuses the fingerprint (and below, the device) of the client evaluation it names.
    const found = await fingerprintOf(repos, envId, input.linkedFingerprintId);
    const parsed = found?.parsed();
    if (found && parsed) {
      const identifying = identifyingBits(measuredComponents(parsed)) >= IDENTIFYING_BITS;
      id.fingerprint = { row: found.row, confidence: 1, isNew: false, identifying, popular: found.row.popular === 1 };
    }
  } else if (measured && hash !== undefined) {
    const identifying = identifyingBits(measured) >= IDENTIFYING_BITS;
    // The coarse key and the stored text only for a fingerprint that moves or is new: a browser presenting its token's
    // own fingerprint, most requests, needs neither.
    const coarse = () => coarseKey(measured);
    const components = () => JSON.stringify(normalised);
    const known = (row: FingerprintHead, confidence: number): NonNullable<Identity["fingerprint"]> => ({
      row,
      confidence,
      isNew: false,
      identifying,
      popular: row.popular === 1,
    });
    // 1. The token's own fingerprint: the same browser, exactly or after a drift (the token vouches for it). A drift on
    // a device the token was only recognised on is followed too: the record is the device's (no other live token's
    // device presents it), and following the browser is recognition, which trusts nothing (a browser that then loses
    // this token too is found by its drifted components, as it was when the token moved at once).
    // Its components are read (and parsed) only when its hash is not the request's: a drift, to compare them.
    const own = tokenDevice?.fingerprint_id
      ? await repos.fingerprints.findOwn(envId, tokenDevice.fingerprint_id, hash, ownRead)
      : undefined;
    const ownParsed =
      own?.components != null ? parsedRow({ id: own.id, exact_hash: own.exact_hash, components: own.components }) : undefined;
    if (own && own.exact_hash === hash) id.fingerprint = known(own, 1);
    else if (own && ownParsed && tokenDevice) {
      const s = similarity(normalised, ownParsed);
      // The token vouches for the browser: half its information agreeing is enough, and less when nothing that only
      // changes with the machine changed (an update, a trip and a dock at once; fingerprint/reid.ts).
      const same = s >= TOKEN_MATCH || (s >= TOKEN_STABLE_MATCH && stableMismatch(normalised, ownParsed) === undefined);
      if (same) id.follows = tokenDevice.id;
      if (same && (await ownedAlone(repos, envId, own.id, tokenDevice, token, input.at))) {
        id.fingerprint = {
          ...known(own, Math.round(s * 1000) / 1000),
          drift: { exact_hash: hash, coarse_key: coarse(), components: components() },
        };
      }
    }
    // Only a user the request names by id: an email a browser claims never brings back an account's device.
    const owner = input.user ? id.user?.id : undefined;
    const recognise = (row: DeviceRow) => {
      id.device = { row, isNew: false, wasDetached: row.status === "detached", recognised: true };
    };
    // The named user's own device presenting this fingerprint; else one nobody owns on which this user was named (a page
    // view puts no device on an account's list, yet the browser was this user's): never another account's.
    const ownDeviceOf = async (row: FingerprintHead): Promise<DeviceRow | undefined> => {
      if (!owner || row.popular === 1) return undefined;
      const devices = await repos.devices.byFingerprint(envId, row.id, FINGERPRINT_DEVICES);
      const unowned = devices.filter((d) => d.user_id === null);
      return devices.find((d) => d.user_id === owner) ?? (unowned.length ? await repos.devices.namedBy(envId, unowned, owner) : undefined);
    };
    // A drift of one of the named user's own devices (cleared storage after an update, Safari's 7-day cap after an OS
    // update, an iPhone whose components every unit of its model shares). Only the user's own devices are candidates,
    // and only one clearly closer than the others with no stable difference (fingerprint/reid.ts).
    const recogniseOwnDrift = async (userId: string) => {
      const found = await recogniseDrifted(repos, envId, userId, normalised, input.at, token);
      if (!found) return;
      // The device's record follows the browser unless another live token's device presents it (identical components
      // there): then these components get a record of their own (below), as after a drift with a token.
      if (found.drift)
        id.fingerprint = {
          ...known(found.fingerprint, found.confidence),
          drift: { exact_hash: hash, coarse_key: coarse(), components: components() },
        };
      recognise(found.device);
      id.follows = found.device.id;
    };
    // 2. Without it: an identifying fingerprint is found by its exact hash; one that is not is never shared. A browser
    // without a live token that names its user is recognised as that user's own device with this fingerprint (cleared
    // storage, a private window), never another account's: recognised, not trusted (the components are anyone's who
    // ran a script on a page the user visited).
    if (!id.fingerprint && identifying) {
      const found = await repos.fingerprints.findExact(envId, hash);
      if (!tokenDevice) {
        for (const row of found) {
          const mine = await ownDeviceOf(row);
          if (mine) {
            id.fingerprint = known(row, 1);
            recognise(mine);
            break;
          }
        }
      }
      if (!id.fingerprint && found[0]) id.fingerprint = known(found[0], 1);
    }
    // 3. Without a live token, not found exactly: a drift of one of the named user's own devices, recognised, not
    // trusted, like the exact match above.
    if (!id.fingerprint && !tokenDevice && owner) await recogniseOwnDrift(owner);
    // 4. A token whose every device is another account's, for a named account with none of them: a login mistyped
    // seconds before from this browser, after its storage was cleared (an account never met, given a device of the new
    // token), or another account's browser naming this one. The token still tells the browser's fingerprint (step 1:
    // its devices are one browser), but not this account's device: for this account the browser is as one without a
    // token, its own device recognised by the components as in steps 2 and 3 (recognised, never trusted), which a
    // browser sending no token could have too. Before, the other account's device hid the account's own, and each such
    // visit made the account a new device of the same components, until its lost tokens were ties between them.
    const anothersToken =
      !!tokenDevice && !!id.user && (id.tokenDevices ?? []).every((d) => d.user_id !== null && d.user_id !== id.user?.id);
    if (anothersToken && owner && !id.device) {
      const mine = id.fingerprint && identifying ? await ownDeviceOf(id.fingerprint.row) : undefined;
      if (mine) recognise(mine);
      else await recogniseOwnDrift(owner);
    }
    if (!id.fingerprint) {
      const created: FingerprintRow = {
        id: newId("fp"),
        environment_id: envId,
        coarse_key: coarse(),
        exact_hash: hash,
        components: components(),
        popular: 0,
        created_at: input.at,
        last_seen_at: input.at,
      };
      id.fingerprint = { row: created, confidence: 1, isNew: true, created, identifying, popular: false };
    }
  }

  if (!id.device) id.device = await resolveDevice(repos, input, id);
  const fp = id.fingerprint;
  const dev = id.device;
  // A device taking up a shared fingerprint for the first time may make it popular, before this request is decided.
  if (fp && !fp.isNew && fp.identifying && !fp.popular && dev && (dev.isNew || dev.row.fingerprint_id !== fp.row.id)) {
    // This request's person, when someone vouches for it already: an account it creates (a sign-up). A login is vouched
    // for once the backend confirms it, an anonymous browser once it has kept its token (both after this request).
    const creates = id.userIsNew && input.action === "signup" && (!!input.user || !!input.email);
    const self = creates ? `new:${input.user ?? input.email}` : undefined;
    if (await becomesPopular(repos, envId, fp.row.id, self, networkOf(input.ip))) {
      fp.popular = true;
      fp.becamePopular = true;
    }
  }
  return id;
}

/** Own devices of a user read to re-identify a browser that lost its token (most recently seen first). */
const REID_CANDIDATES = 16;

/**
 * The named user's own device whose fingerprint these components are a drift of (fingerprint/reid.ts), with its
 * fingerprint; `drift` when no other live token's device presents that fingerprint, so the record may follow the
 * browser. A popular fingerprint brings back no device.
 */
async function recogniseDrifted(
  repos: Repos,
  envId: string,
  userId: string,
  normalised: Record<string, unknown>,
  at: number,
  token: string | undefined,
): Promise<{ device: DeviceRow; fingerprint: FingerprintRow; confidence: number; drift: boolean } | undefined> {
  const devices = (await repos.devices.listForUser(envId, userId))
    .filter((d) => d.fingerprint_id && d.last_seen_at != null && at - Number(d.last_seen_at) <= LIVE_TOKEN_MS)
    .slice(0, REID_CANDIDATES);
  if (devices.length === 0) return undefined;
  // Two reads whatever the number of devices: their fingerprints' rows, then the components not parsed yet.
  const rows = new Map(
    (await repos.fingerprints.findByIds(envId, [...new Set(devices.map((d) => d.fingerprint_id as string))])).map((r) => [r.id, r]),
  );
  const parsed = new Map((await parsedCandidates(repos, envId, [...rows.values()])).map((p) => [p.id, p.parsed]));
  const candidates: Array<{ item: { device: DeviceRow; fingerprint: FingerprintRow }; components: Record<string, unknown> }> = [];
  for (const device of devices) {
    const row = rows.get(device.fingerprint_id as string);
    const components = row && parsed.get(row.id);
    if (!row || !components || row.popular === 1) continue;
    candidates.push({ item: { device, fingerprint: row }, components });
  }
  const result = reidentify(normalised, candidates);
  if (!result.match) return undefined;
  const { device, fingerprint } = result.match;
  const drift = await ownedAlone(repos, envId, fingerprint.id, device, token, at);
  return { device, fingerprint, confidence: Math.round(result.similarity * 1000) / 1000, drift };
}

/**
 * A fingerprint is popular once devices of at least POPULAR_OWNERS people on at least POPULAR_NETWORKS networks present
 * it: the same configuration in unrelated homes, not one person's browser. One person with several accounts on one
 * network (multi-accounting) never makes it popular. A person is someone vouched for: an account on a device it signed
 * in on, or, signed in nowhere yet, that a sign-up created and let in; an account this request's sign-up creates; or an
 * anonymous browser that kept its token for half a day (DevicesRepo.vouchedOwners). The client id is public: a browser
 * that names account after account (logins, or pages naming accounts never met, which creates them), or clears its
 * storage before each attempt, would otherwise make its own fingerprint popular from two networks, and stop
 * being followed (a combo list through rotating proxies).
 */
export const POPULAR_OWNERS = 3;
export const POPULAR_NETWORKS = 2;

async function becomesPopular(
  repos: Repos,
  envId: string,
  fingerprintId: string,
  self: string | undefined,
  network: string | undefined,
): Promise<boolean> {
  const rows = await repos.devices.byFingerprint(envId, fingerprintId, FINGERPRINT_DEVICES);
  const vouched = await repos.devices.vouchedOwners(envId, rows);
  const owners = new Set(self ? [self] : []);
  const networks = new Set(self && network ? [network] : []);
  for (const r of rows) {
    const owner = vouched.get(r.id);
    if (!owner) continue;
    owners.add(owner);
    const n = networkOf(r.last_ip);
    if (n) networks.add(n);
  }
  return owners.size >= POPULAR_OWNERS && networks.size >= POPULAR_NETWORKS;
}

/** The device of the request (docs/identity.md): the token's own; without a live token, the named user's by fingerprint. */
async function resolveDevice(repos: Repos, input: EvaluationInput, id: Identity): Promise<Identity["device"]> {
  const envId = input.env.id;
  const token = input.signals.visitor_token;
  let device: DeviceRow | undefined;
  // For a named account: their own device or an unowned one, never another account's (null = a new account's).
  const owner = input.user || input.email ? (id.user?.id ?? null) : undefined;
  if (input.linkedEvaluationId) {
    const linked = await repos.evaluations.find(envId, input.linkedEvaluationId);
    if (linked?.device_id) device = await repos.devices.find(envId, linked.device_id);
    // The client evaluation only recognised its device by the fingerprint (`pending_token`: cleared storage, a private
    // window, or someone replaying the user's components): so is this evaluation, which reuses it. The backend checked
    // a password, not that this browser is the device's. For the account that recognition was made for, the device is
    // recognised here too (new for trust; it takes the browser's token once this evaluation is vouched for); for any
    // other account the browser is a new device, never the other account's.
    if (device && linked?.pending_token) {
      if (owner && linked.user_id === owner)
        return {
          row: device,
          isNew: false,
          wasDetached: device.status === "detached",
          recognised: true,
          pendingToken: linked.pending_token,
        };
      device = undefined;
    }
  }
  if (!device && token && id.tokenDevices?.length) {
    device = await repos.devices.ofToken(envId, token, owner, await recognisableFor(repos, envId, token, owner, id.tokenDevices));
  }
  if (device) {
    const wasDetached = device.status === "detached";
    // Found by the token it was recognised on (by its fingerprint, an earlier request): still only recognised.
    if (token && !input.linkedEvaluationId && device.visitor_token !== token && device.previous_token !== token)
      return { row: device, isNew: false, wasDetached, recognised: true };
    return { row: device, isNew: false, wasDetached, retoken: !!token && device.visitor_token !== token };
  }
  if (input.source === "client" || id.fingerprint) return { isNew: true, wasDetached: false, row: newDeviceRow(input, id) };
  return undefined;
}

/**
 * The token's devices a request for `owner` may be resolved to. A device nobody owns that this token was only
 * recognised on (its fingerprint, on an earlier request naming an account) is this browser for an account named on it,
 * as the recognition itself required (resolveIdentity, step 2), and for no other: a stranger who presented the
 * components of someone's pages-only browser naming them must not take that browser's device into an account of their
 * own, or into the one their sign-up creates, once their own login there is consumed (docs/identity.md).
 */
async function recognisableFor(
  repos: Repos,
  envId: string,
  token: string,
  owner: string | null | undefined,
  rows: DeviceRow[],
): Promise<DeviceRow[]> {
  if (owner === undefined) return rows;
  const out: DeviceRow[] = [];
  for (const d of rows) {
    const recognisedOnly = d.user_id === null && d.visitor_token !== token && d.previous_token !== token;
    if (!recognisedOnly || (owner !== null && (await repos.devices.namedBy(envId, [d], owner)))) out.push(d);
  }
  return out;
}

/** A device seen for the first time: unowned until a verdict or a client operation attaches it. */
export function newDeviceRow(input: EvaluationInput, identity: Pick<Identity, "fingerprint" | "deviceType" | "deviceInfo">): DeviceRow {
  return {
    id: newId("dev"),
    environment_id: input.env.id,
    user_id: null,
    visitor_token: input.signals.visitor_token ?? null,
    previous_token: null,
    recognised_token: null,
    fingerprint_id: identity.fingerprint?.row.id ?? null,
    status: "attached",
    type: identity.deviceType,
    info: JSON.stringify(identity.deviceInfo),
    metadata: "{}",
    attached_at: null,
    detached_at: null,
    logout_pending: 0,
    last_seen_at: input.at,
    last_ip: input.ip ?? null,
    created_at: input.at,
    updated_at: input.at,
  };
}

// Identity step: who (user), which browser (fingerprint) and which hardware (device) this request comes from.
// Reads only; the writes it implies are returned as a plan that the orchestrator commits with the evaluation.
import type { DeviceType } from "@tessera/sdk/contract";
import { UAParser } from "ua-parser-js";
import { BoundedMap } from "../caches.js";
import {
  bestParsedMatch,
  coarseKey,
  entropyWeight,
  exactHash,
  fingerprintComponents,
  MIN_ENTROPY_WEIGHT,
  ParsedComponentsCache,
} from "../fingerprint/index.js";
import { newId } from "../ids.js";
import type { DeviceRow } from "../store/devices.js";
import type { FingerprintRow } from "../store/fingerprints.js";
import type { Repos } from "../store/repos.js";
import type { UserRow } from "../store/users.js";
import type { EvaluationInput } from "./context.js";

export interface Identity {
  user?: UserRow;
  userIsNew: boolean;
  fingerprint?: {
    row: FingerprintRow;
    confidence: number;
    isNew: boolean;
    /** Set on a drift match: the components to move the known fingerprint to (in the evaluation's transaction). */
    drift?: { exact_hash: string; coarse_key: string; components: string };
  };
  device?: { row: DeviceRow; isNew: boolean; wasDetached: boolean };
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
    try {
      const parsed = JSON.parse(row.components) as Record<string, unknown>;
      parsedComponents.set(row.id, row.exact_hash, parsed);
      out.push({ id: row.id, parsed });
    } catch {
      // A corrupt row is no candidate.
    }
  }
  return out;
}

export async function resolveIdentity(repos: Repos, input: EvaluationInput): Promise<Identity> {
  const envId = input.env.id;
  const { info, type } = parseUserAgent(input.userAgent);
  const id: Identity = { userIsNew: false, deviceInfo: info, deviceType: type };

  if (input.user) {
    const user = await repos.users.findByExternal(envId, input.user);
    if (user) id.user = user;
    else id.userIsNew = true;
  }
  const token = input.signals.visitor_token;
  if (token) id.tokenDevices = await repos.devices.byToken(envId, token);

  const normalised = fingerprintComponents(input.signals.components, info);
  if (input.linkedFingerprintId) {
    // A backend evaluation reuses the fingerprint (and below, the device) of the client evaluation it names.
    const row = await repos.fingerprints.findById(envId, input.linkedFingerprintId);
    if (row) id.fingerprint = { row, confidence: 1, isNew: false };
  } else if (entropyWeight(normalised) >= MIN_ENTROPY_WEIGHT) {
    const hash = exactHash(normalised);
    const found = await repos.fingerprints.findExact(envId, hash);
    if (found) id.fingerprint = { row: found, confidence: 1, isNew: false };
    else {
      // Drift: compare with the known fingerprints sharing the coarse key (indexed, bounded), plus the one last
      // seen with this visitor token (a browser update may change a coarse component too).
      const coarse = coarseKey(normalised);
      const components = JSON.stringify(normalised);
      const keys = await repos.fingerprints.candidateKeys(envId, coarse, 100);
      const tokenDevice = id.tokenDevices?.[0];
      if (tokenDevice?.fingerprint_id && !keys.some((c) => c.id === tokenDevice.fingerprint_id)) {
        const row = await repos.fingerprints.findById(envId, tokenDevice.fingerprint_id);
        if (row) keys.push({ id: row.id, exact_hash: row.exact_hash });
      }
      const found = await parsedCandidates(repos, envId, keys);
      const best = bestParsedMatch(normalised, found);
      const matchedRow = best && (await repos.fingerprints.findById(envId, best.candidate.id));
      const match = matchedRow && best ? { candidate: matchedRow, confidence: best.confidence } : undefined;
      id.fingerprint = match
        ? { row: match.candidate, confidence: match.confidence, isNew: false, drift: { exact_hash: hash, coarse_key: coarse, components } }
        : {
            row: {
              id: newId("fp"),
              environment_id: envId,
              coarse_key: coarse,
              exact_hash: hash,
              components,
              created_at: input.at,
              last_seen_at: input.at,
            },
            confidence: 1,
            isNew: true,
          };
    }
  }

  const userId = id.user?.id ?? null;
  let device: DeviceRow | undefined;
  if (input.linkedEvaluationId) {
    const linked = await repos.evaluations.find(envId, input.linkedEvaluationId);
    if (linked?.device_id) device = await repos.devices.find(envId, linked.device_id);
  }
  if (!device) {
    // For a named user: their own device or an unowned one, never another account's (userId null = a new user).
    const owner = input.user ? userId : undefined;
    const fingerprintId = id.fingerprint && !id.fingerprint.isNew ? id.fingerprint.row.id : undefined;
    device = await repos.devices.resolve(envId, { token, fingerprintId }, owner, id.tokenDevices);
  }
  if (device) {
    id.device = { row: device, isNew: false, wasDetached: device.status === "detached" };
  } else if (input.source === "client" || id.fingerprint) {
    id.device = { isNew: true, wasDetached: false, row: newDeviceRow(input, id) };
  }
  return id;
}

/** A device seen for the first time: unowned until a verdict or a client operation attaches it. */
export function newDeviceRow(input: EvaluationInput, identity: Pick<Identity, "fingerprint" | "deviceType" | "deviceInfo">): DeviceRow {
  return {
    id: newId("dev"),
    environment_id: input.env.id,
    user_id: null,
    visitor_token: input.signals.visitor_token ?? null,
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

// Devices (docs/server-api.md, docs/challenges.md): a user's devices, detach (also the challenges' "kick"), metadata, and the client device
// operations of the client API (docs/client-api.md: attach, detach, fingerprint, hash, identify), which resolve identity like
// an evaluation.
import { type Device, Metadata } from "@tessera/sdk/contract";
import * as z from "zod/mini";
import { badRequest, conflict, notFound, userNotFound } from "../errors.js";
import { exactHash, fingerprintComponents } from "../fingerprint/index.js";
import { withLastPlace } from "../geo/place.js";
import { newId } from "../ids.js";
import type { EvaluationInput } from "../pipeline/context.js";
import { type Identity, newDeviceRow, parseUserAgent, resolveIdentity } from "../pipeline/identity.js";
import { persistIdentity } from "../pipeline/persist-identity.js";
import type { EventSink } from "../pipeline/ports.js";
import type { DeviceRow } from "../store/devices.js";
import type { Repos } from "../store/repos.js";
import type { UserRow } from "../store/users.js";
import { now } from "../time.js";
import { toWireDevice } from "../wire/devices.js";

export interface DetachOptions {
  /** Tell the device's SDK to log out at its next evaluation (a kick or an admin detach); false when the browser itself asked. */
  logout?: boolean;
  at?: number;
}

/**
 * Detaches a device from its user inside `db` (the caller's transaction) and emits `device.detached` there.
 * The challenges' kick calls this with its own transaction. Answers the device after the change, or undefined when
 * the device does not exist in the environment; detaching a detached device changes nothing and emits nothing.
 */
export async function detachDevice(
  deps: { repos: Repos; events: EventSink },
  environmentId: string,
  deviceId: string,
  opts: DetachOptions = {},
): Promise<Device | undefined> {
  const found = await deps.repos.userData.deviceWithOwner(environmentId, deviceId);
  if (!found) return undefined;
  const { device: row, user } = found;
  if (row.status === "detached") return toWireDevice(row, user?.external_id);
  const at = opts.at ?? now();
  const patch = { status: "detached" as const, detached_at: at, logout_pending: opts.logout === false ? 0 : 1, updated_at: at };
  await deps.repos.devices.update(row.id, patch);
  // Detached, it is nobody's signed-in device: what it does counts for an account again after its next sign-in.
  await deps.repos.devices.forgetConfirmations(environmentId, row.id);
  const device = toWireDevice({ ...row, ...patch }, user?.external_id, at);
  await deps.events.emit(environmentId, "device.detached", { ...(user ? { account: user.external_id } : {}), device });
  return device;
}

export class DevicesService {
  constructor(
    private readonly repos: Repos,
    private readonly events: EventSink,
  ) {}

  private async userOrThrow(environmentId: string, externalId: string): Promise<UserRow> {
    const user = await this.repos.users.findByExternal(environmentId, externalId);
    if (!user) throw userNotFound(externalId);
    return user;
  }

  async listForUser(environmentId: string, externalId: string): Promise<Device[]> {
    const user = await this.userOrThrow(environmentId, externalId);
    const at = now();
    return (await this.repos.devices.listForUser(environmentId, user.id)).map((d) => withLastPlace(toWireDevice(d, user.external_id, at)));
  }

  async detach(environmentId: string, deviceId: string, opts: DetachOptions = {}): Promise<Device> {
    const device = await this.repos.transaction(() =>
      detachDevice({ repos: this.repos, events: this.events }, environmentId, deviceId, opts),
    );
    if (!device) throw notFound("Device");
    return device;
  }

  private async wire(row: DeviceRow): Promise<Device> {
    const user = row.user_id ? await this.repos.users.findById(row.user_id) : undefined;
    return toWireDevice(row, user?.external_id);
  }

  /** Replaces the device's metadata. */
  async setMetadata(environmentId: string, deviceId: string, metadata: Metadata): Promise<Device> {
    const row = await this.repos.devices.find(environmentId, deviceId);
    if (!row) throw notFound("Device");
    const patch = { metadata: JSON.stringify(metadata), updated_at: now() };
    await this.repos.devices.update(row.id, patch);
    return this.wire({ ...row, ...patch });
  }

  /**
   * Legacy metadata fields (`{ key: [values] }`) merge into the device metadata, values de-duplicated per key. Each call
   * is within the metadata bounds (the contract), and so must the merged metadata be: otherwise calls would grow it
   * without end.
   */
  async mergeMetadataFields(environmentId: string, deviceId: string, fields: Record<string, string[]>): Promise<void> {
    const row = await this.repos.devices.find(environmentId, deviceId);
    if (!row) throw notFound("Device");
    const metadata = JSON.parse(row.metadata) as Record<string, unknown>;
    for (const [key, values] of Object.entries(fields)) {
      const prev = Array.isArray(metadata[key]) ? (metadata[key] as unknown[]).filter((v): v is string => typeof v === "string") : [];
      metadata[key] = [...new Set([...prev, ...values])];
    }
    const merged = z.safeParse(Metadata, metadata);
    if (!merged.success) {
      const issue = merged.error.issues[0];
      throw badRequest(`The device's metadata would exceed its bounds: ${issue?.message ?? "too large"}`, "metadata_fields");
    }
    await this.repos.devices.update(row.id, { metadata: JSON.stringify(metadata), updated_at: now() });
  }

  /**
   * Stores the fingerprint and device that a resolved identity implies (persistIdentity, as an evaluation does), in
   * `tx`. Identity is resolved before the transaction: on SQLite the transaction holds the only connection.
   */
  async identify(input: EvaluationInput, resolved?: Identity): Promise<Identity> {
    const identity = resolved ?? (await resolveIdentity(this.repos, input));
    await persistIdentity(this.repos, input, identity);
    return identity;
  }

  /** Client attach: this browser's device is attached to `user` (created if new). */
  async clientAttach(input: EvaluationInput & { user: string }): Promise<{ device: string; status: "attached" | "detached" }> {
    const resolved = await resolveIdentity(this.repos, input);
    return this.repos.transaction(async () => {
      const identity = await this.identify(input, resolved);
      const { user } = await this.repos.users.upsert(input.env.id, input.user, { source: "client" });
      const device = identity.device?.row ?? (await this.newBareDevice(input, identity));
      const token = input.signals.visitor_token;
      const patch = {
        user_id: user.id,
        status: "attached" as const,
        attached_at: input.at,
        detached_at: null,
        logout_pending: 0,
        updated_at: input.at,
        // Recognised by its fingerprint: the backend's user_token vouches for this browser, whose token it takes (the
        // one it had is kept, as a vouched evaluation does: store/history.ts, confirmDevice).
        ...(identity.device?.recognised && token && device.visitor_token !== token
          ? { visitor_token: token, previous_token: device.visitor_token }
          : {}),
      };
      await this.repos.devices.update(device.id, patch);
      return { device: device.id, status: "attached" as const };
    });
  }

  /**
   * Client detach: the browser detaches its own device, the one holding its exact visitor token (docs/security.md) — never
   * one found by a similar fingerprint, which anyone can imitate. A named user must own it. No logout to signal: the
   * browser asked.
   */
  async clientDetach(input: EvaluationInput): Promise<{ device: string; status: "attached" | "detached" }> {
    const token = input.signals.visitor_token;
    if (!token)
      throw badRequest("A browser detaches the device of its own visitor token: send signals.visitor_token", "signals.visitor_token");
    const devices = await this.repos.devices.byToken(input.env.id, token);
    const owner = input.user ? await this.repos.users.findByExternal(input.env.id, input.user) : undefined;
    const device = input.user
      ? devices.find((d) => owner && d.user_id === owner.id)
      : (devices.find((d) => d.status === "attached" && d.user_id !== null) ?? devices[0]);
    if (!device) throw notFound("Device of this visitor token");
    await this.repos.transaction(() =>
      detachDevice({ repos: this.repos, events: this.events }, input.env.id, device.id, { logout: false, at: input.at }),
    );
    return { device: device.id, status: "detached" };
  }

  /**
   * The SDK's heartbeat: whether a device of this visitor token was kicked since it last heard (then answered once,
   * like an evaluation's `logout`). Reads the token's devices only; writes only to clear the flag.
   */
  async heartbeat(environmentId: string, token: string): Promise<{ logout: boolean }> {
    const kicked = (await this.repos.devices.byToken(environmentId, token)).find((d) => d.status === "detached" && d.logout_pending === 1);
    if (!kicked) return { logout: false };
    await this.repos.devices.update(kicked.id, { logout_pending: 0, updated_at: now() });
    return { logout: true };
  }

  /** Backend attach (secret key): the device joins `externalUser`'s account (created if new), whoever held it. */
  async attach(environmentId: string, deviceId: string, externalUser: string): Promise<Device> {
    const row = await this.repos.devices.find(environmentId, deviceId);
    if (!row) throw notFound("Device");
    return this.repos.transaction(async () => {
      const at = now();
      const { user } = await this.repos.users.upsert(environmentId, externalUser, { source: "server" });
      const patch = {
        user_id: user.id,
        status: "attached" as const,
        attached_at: at,
        detached_at: null,
        logout_pending: 0,
        updated_at: at,
      };
      await this.repos.devices.update(row.id, patch);
      return toWireDevice({ ...row, ...patch }, user.external_id, at);
    });
  }

  /** Client fingerprint: the server-computed fingerprint id and the confidence of the match. */
  async clientFingerprint(input: EvaluationInput): Promise<{ fingerprint_id: string | null; confidence: number }> {
    const resolved = await resolveIdentity(this.repos, input);
    return this.repos.transaction(async () => {
      const identity = await this.identify(input, resolved);
      return { fingerprint_id: identity.fingerprint?.row.id ?? null, confidence: identity.fingerprint?.confidence ?? 0 };
    });
  }

  /** Client hash: [this browser's fingerprint hash now, the one its device had at its previous sighting]. */
  async clientHash(input: EvaluationInput): Promise<[string | null, string | null]> {
    const before = await resolveIdentity(this.repos, input);
    const lastFpId = before.device && !before.device.isNew ? before.device.row.fingerprint_id : null;
    const last = lastFpId ? ((await this.repos.fingerprints.findById(input.env.id, lastFpId))?.exact_hash ?? null) : null;
    return this.repos.transaction(async () => {
      const identity = await this.identify(input, before);
      // The hash of exactly these components, even when they matched a stored fingerprint with drift.
      const normalised = fingerprintComponents(input.signals.components, parseUserAgent(input.userAgent).info);
      const current = Object.keys(normalised).length > 0 ? exactHash(normalised) : (identity.fingerprint?.row.exact_hash ?? null);
      return [current, last];
    });
  }

  /** Legacy identify: records an identification of this browser's device that a backend completes (docs/server-api.md). */
  async clientIdentify(input: EvaluationInput): Promise<{ identification_id: string }> {
    const resolved = await resolveIdentity(this.repos, input);
    return this.repos.transaction(async () => {
      const identity = await this.identify(input, resolved);
      const device = identity.device?.row ?? (await this.newBareDevice(input, identity));
      const id = newId("idn");
      await this.repos.identifications.insert({
        id,
        environment_id: input.env.id,
        device_id: device.id,
        fingerprint_id: identity.fingerprint?.row.id ?? null,
        confidence: identity.fingerprint?.confidence ?? 0,
        user_id: null,
        access_id: null,
        new_device: null,
        completed_at: null,
        created_at: input.at,
        // Recognised by its fingerprint, not found by this browser's token: the completion decides (completeIdentification).
        pending_token: (identity.device?.recognised && input.signals.visitor_token) || null,
      });
      return { identification_id: id };
    });
  }

  /** A device row for a browser that sent neither a visitor token nor components (nothing to link it by later). */
  private async newBareDevice(input: EvaluationInput, identity: Identity): Promise<DeviceRow> {
    const row = newDeviceRow(input, identity);
    await this.repos.devices.insert(row);
    return row;
  }
}

/**
 * Legacy completion (docs/server-api.md): the backend names the account the identified browser belongs to; the device is
 * attached to it and an access record written. Completes once (a second call is a 409).
 */
export async function completeIdentification(
  repos: Repos,
  environmentId: string,
  identificationId: string,
  account: string,
): Promise<{ access: string; device: string; new_device: boolean; metadata_fields: Record<string, string[]> }> {
  const found = await repos.identifications.find(environmentId, identificationId);
  if (!found) throw notFound("Identification");
  if (found.completed_at != null) throw conflict("conflict", "This identification was already completed");
  return repos.transaction(async () => {
    const at = now();
    const { user } = await repos.users.upsert(environmentId, account, { source: "server" });
    const owned = await repos.userData.deviceWithOwner(environmentId, found.device_id);
    if (!owned) throw notFound("Device of this identification");
    const token = found.pending_token;
    // The browser was only recognised as this device by its fingerprint (docs/identity.md, "Recognition and trust"):
    // the components are anyone's who ran a script on a page the user visited. The backend vouches for the account it
    // names, so the device takes the browser's token when it is that account's own, and is new to it all the same; for
    // another account (or a device nobody owns) the browser is that account's device of its own token, and the
    // recognised one is not touched.
    let device = owned.device;
    if (token && device.user_id !== user.id)
      device = (await repos.devices.ofToken(environmentId, token, user.id)) ?? (await insertTokenDevice(repos, device, token, found, at));
    const recognisedOwn = token !== null && device.id === owned.device.id;
    const newDevice = recognisedOwn || device.user_id !== user.id;
    const access = newId("acc");
    if (!(await repos.identifications.complete(found.id, { user_id: user.id, access_id: access, new_device: newDevice, at }))) {
      throw conflict("conflict", "This identification was already completed");
    }
    await repos.accessRecords.insert({
      id: access,
      environment_id: environmentId,
      device_id: device.id,
      user_id: user.id,
      confidence: found.confidence,
      metadata: "{}",
      created_at: at,
      updated_at: at,
    });
    const retoken = recognisedOwn && device.visitor_token !== token;
    // A kicked device keeps its logout for its own browser: one recognised as it does not spend it (persist-identity.ts).
    const kicked = recognisedOwn && device.logout_pending === 1;
    if (!kicked && (newDevice || device.status !== "attached")) {
      await repos.devices.update(device.id, {
        user_id: user.id,
        status: "attached",
        attached_at: at,
        detached_at: null,
        logout_pending: 0,
        updated_at: at,
        ...(retoken ? { visitor_token: token, previous_token: device.visitor_token } : {}),
      });
    }
    return { access, device: device.id, new_device: newDevice, metadata_fields: metadataFields(device.metadata) };
  });
}

/**
 * A device of its own for a browser that completed an identification under another account than the device it was
 * recognised as: its token and the identification's fingerprint, the recognised device's kind (its place is not copied).
 */
async function insertTokenDevice(
  repos: Repos,
  recognised: DeviceRow,
  token: string,
  identification: { fingerprint_id: string | null; created_at: number },
  at: number,
): Promise<DeviceRow> {
  const row: DeviceRow = {
    id: newId("dev"),
    environment_id: recognised.environment_id,
    user_id: null,
    visitor_token: token,
    previous_token: null,
    recognised_token: null,
    fingerprint_id: identification.fingerprint_id,
    status: "attached",
    type: recognised.type,
    info: recognised.info,
    metadata: "{}",
    attached_at: null,
    detached_at: null,
    logout_pending: 0,
    last_seen_at: Number(identification.created_at),
    last_ip: null,
    created_at: at,
    updated_at: at,
  };
  await repos.devices.insert(row);
  return row;
}

/** The legacy view of device metadata: the keys whose values are lists of strings. */
export function metadataFields(metadataJson: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(JSON.parse(metadataJson) as Record<string, unknown>)) {
    if (Array.isArray(v) && v.every((x) => typeof x === "string")) out[k] = v as string[];
  }
  return out;
}

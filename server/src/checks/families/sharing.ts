// Checks of account sharing (docs/detection.md, "Account sharing"): the account's devices in use, the device limit
// that applies to this evaluation, and the user's other sessions in use at the same time — on other networks, and too
// far apart for one person to hold them both.
import type { PolicyChallenge } from "@tessera/sdk/contract";
import { userDevices } from "../../facts/devices.js";
import { geo } from "../../geo/index.js";
import { networkOf } from "../../geo/ip.js";
import { projectDeviceLimit } from "../../policies/device-limit.js";
import type { UserDevice } from "../../store/history.js";
import { ACTIVE_WINDOW_MS } from "../../wire/devices.js";
import { type CheckContext, defineCheck, derived } from "../define.js";
import { isImpossible, MIN_SESSIONS_APART_KM, placeOf, travelBetween } from "../travel.js";

type Ctx = CheckContext<readonly [typeof userDevices]>;

interface SharingPolicy {
  enabled: boolean;
  actions: string[];
  verdict: string;
  challenge?: PolicyChallenge;
}

/**
 * The device limit this evaluation is held to: that of the highest-priority enabled account-sharing challenge policy
 * for its action (`policies` come highest priority first), else the project's default, else 3 — the limit the owner
 * is asked to get back under (challenges/service.ts), so the `account_sharing` risk and the challenge agree.
 */
export function deviceLimitFor(policies: SharingPolicy[], action: string, projectDefault: number | undefined): number {
  for (const p of policies) {
    if (!p.enabled || p.challenge?.type !== "account_sharing") continue;
    if (p.verdict !== "challenge" && p.verdict !== "challenge_and_restrict") continue;
    if (p.actions.length > 0 && !p.actions.includes(action)) continue;
    if (p.challenge.device_limit !== undefined) return p.challenge.device_limit;
    break;
  }
  return projectDeviceLimit({ default_device_limit: projectDefault });
}

/**
 * A device counts among an account's devices while it is in use: seen within the last 30 days, and either used over
 * more than an hour (a browser that keeps coming back) or active within the last hour. A private window or a browser
 * that lost its token makes a device of a single visit (docs/identity.md): it stops counting an hour after it was used.
 */
const DEVICE_STALE_MS = 30 * 24 * 3600 * 1000;
const DEVICE_ESTABLISHED_MS = 3600 * 1000;

function inUse(d: UserDevice, at: number): boolean {
  if (d.last_seen_at == null || at - d.last_seen_at > DEVICE_STALE_MS) return false;
  return d.last_seen_at - d.created_at >= DEVICE_ESTABLISHED_MS || at - d.last_seen_at < DEVICE_ESTABLISHED_MS;
}

/**
 * A device replaced by another of its type: never seen again once the newer one appeared, after at least
 * REPLACED_AFTER_MS of silence. That is one browser that lost its storage (Safari's 7-day cap, cleared cookies: a phone
 * whose fingerprint its whole model shares comes back as a new device) or a phone replaced by a new one: one device in
 * use, not two. Devices used side by side (two computers, a friend's browser) are each seen after the other appeared.
 */
const REPLACED_AFTER_MS = 12 * 3600 * 1000;

function superseded(d: UserDevice, others: Array<{ id: string; type: string; created_at: number }>): boolean {
  if (d.last_seen_at == null) return false;
  const seen = d.last_seen_at;
  return others.some((e) => e.id !== d.id && e.type === d.type && e.created_at >= seen + REPLACED_AFTER_MS);
}

type DeviceCounts = { all: number; computer: number; tablet: number; mobile: number };

function countDevice(counts: DeviceCounts, type: string): void {
  counts.all++;
  if (type === "computer" || type === "tablet" || type === "mobile") counts[type]++;
}

/** The account's devices in use, by type, this one included. */
const deviceCounts = derived((c: Ctx): DeviceCounts => {
  const { input, identity } = c;
  const device = identity.device;
  // The account's other devices in use are those the user signed in on: a browser that only named the user on a
  // page (the client id is public) neither fills the account up nor puts the owner over the limit.
  const attached = c.facts.devices.filter((d) => d.status === "attached" && d.confirmed && d.id !== device?.row.id);
  const counts = { all: 0, computer: 0, tablet: 0, mobile: 0 };
  // The current device replaces an older one of its type as well (it is new, or was created after it).
  const current = device
    ? [{ id: device.row.id, type: identity.deviceType, created_at: device.isNew ? input.at : Number(device.row.created_at) }]
    : [];
  for (const d of attached) if (inUse(d, input.at) && !superseded(d, [...attached, ...current])) countDevice(counts, d.type);
  // The current device counts for a known user and for a new one (it joins the account with this evaluation).
  if ((identity.user || identity.userIsNew) && device) countDevice(counts, identity.deviceType);
  return counts;
});

/**
 * The user's other sessions: attached devices (not this one) seen within the active window. Two browsers of one
 * person on one network (a /24) are not sharing; a phone and a laptop of one person are in one place, so distance is
 * measured between devices of any type, from each device's last address (carrier, VPN and datacenter exits place
 * nobody: see checks/travel.ts). `concurrent`: other devices of the same type in use on other networks; `farApart`: one
 * of the user's other devices in use was where this one could not also be.
 */
const sessions = derived((c: Ctx): { concurrent: number; farApart: boolean } => {
  const { input, identity, signals } = c;
  const here = placeOf(signals.geolocation, input.at);
  const network = signals.network?.prefix;
  let concurrent = 0;
  let farApart = false;
  for (const d of c.facts.devices) {
    // Sessions of devices the user signed in on (a stranger naming the user from afar is no session of theirs).
    if (d.status !== "attached" || !d.confirmed || d.id === identity.device?.row.id) continue;
    if (d.last_seen_at == null || input.at - d.last_seen_at >= ACTIVE_WINDOW_MS || !d.last_ip) continue;
    const elsewhere = network ? networkOf(d.last_ip) !== network : d.last_ip !== input.ip;
    if (!elsewhere) continue;
    if (d.type === identity.deviceType) concurrent++;
    if (here && !farApart) {
      const there = placeOf(geo().lookup(d.last_ip), d.last_seen_at);
      farApart = !!there && isImpossible(travelBetween(there, here), MIN_SESSIONS_APART_KM);
    }
  }
  return { concurrent, farApart };
});

const needs = [userDevices] as const;

export const checks = [
  defineCheck({
    name: "concurrent_sessions",
    type: "number",
    doc: "The user's other devices of this device's type in use within the last 15 minutes from another network.",
    reason: "concurrent_sessions",
    needs,
    compute: (c) => sessions(c).concurrent,
  }),
  defineCheck({
    name: "session_impossible_travel",
    type: "boolean",
    doc: "One of the user's other devices in use within the last 15 minutes was too far from here for one person to hold both (more than 250 km beyond the accuracy radii).",
    reason: "sessions_far_apart",
    needs,
    compute: (c) => sessions(c).farApart,
  }),
  defineCheck({
    name: "device_count",
    type: "number",
    doc: "The account's devices in use (signed in on, seen within 30 days, not replaced by a newer one of their type), this one included.",
    reason: "limit_exceeded",
    needs,
    compute: (c) => deviceCounts(c).all,
  }),
  defineCheck({
    name: "computer_device_count",
    type: "number",
    doc: "Of those, computers.",
    reason: "limit_exceeded",
    needs,
    compute: (c) => deviceCounts(c).computer,
  }),
  defineCheck({
    name: "tablet_device_count",
    type: "number",
    doc: "Of those, tablets.",
    reason: "limit_exceeded",
    needs,
    compute: (c) => deviceCounts(c).tablet,
  }),
  defineCheck({
    name: "mobile_device_count",
    type: "number",
    doc: "Of those, phones.",
    reason: "limit_exceeded",
    needs,
    compute: (c) => deviceCounts(c).mobile,
  }),
  defineCheck({
    name: "device_limit",
    type: "number",
    doc: "The device limit of the account-sharing policy that applies to this evaluation (else the project's default, else 3).",
    reason: "device_limit",
    compute: (c) => c.deviceLimit,
  }),
  defineCheck({
    name: "devices_over_limit",
    type: "number",
    doc: "Devices in use beyond the device limit (0 within it).",
    reason: "limit_exceeded",
    needs,
    compute: (c) => Math.max(0, deviceCounts(c).all - c.deviceLimit),
  }),
] as const;

// Account sharing (SPEC.md 7, issue 15): the device limit that applies to an evaluation, and the user's other
// sessions in use at the same time — on other networks, and too far apart for one person to hold them both.
import type { PolicyChallenge } from "@tessera/sdk/contract";
import { projectDeviceLimit } from "../challenges/limits.js";
import { geo } from "../geo/index.js";
import { networkOf } from "../geo/ip.js";
import type { EvaluationInput } from "../pipeline/context.js";
import type { Identity } from "../pipeline/identity.js";
import type { SignalSet } from "../signals/index.js";
import { ACTIVE_WINDOW_MS } from "../store/devices.js";
import type { UserDevice } from "../store/history.js";
import { isImpossible, MIN_SESSIONS_APART_KM, placeOf, travelBetween } from "./travel.js";

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

export interface Sessions {
  /** Other attached devices of the same type in use in the last 15 minutes from another network. */
  concurrent: number;
  /** One of the user's other devices in use in the last 15 minutes was where this one could not also be. */
  farApart: boolean;
}

/**
 * The user's other sessions: attached devices (not this one) seen within the active window. Two browsers of one
 * person on one network (a /24) are not sharing; a phone and a laptop of one person are in one place, so distance is
 * measured between devices of any type, from each device's last address (carrier, VPN and datacenter exits place
 * nobody: see travel.ts).
 */
export function otherSessions(input: EvaluationInput, identity: Identity, signals: SignalSet, devices: UserDevice[]): Sessions {
  const here = placeOf(signals.geolocation, input.at);
  const network = signals.network?.prefix;
  let concurrent = 0;
  let farApart = false;
  for (const d of devices) {
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
}

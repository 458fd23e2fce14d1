import { type ExpressionBuilder, sql } from "kysely";
import { queueInsert } from "./prepared.js";
import type { Database } from "./schema.js";
import type { LoginAttemptsTable } from "./tables/core.js";
import { Repository } from "./transactions.js";

export type LoginAttemptRow = LoginAttemptsTable;

export interface AttemptKeys {
  /** The browser: deviceKey(token, device). */
  deviceKey?: string;
  fingerprintId?: string;
  ip?: string;
  network?: string;
}

export interface AttemptCounts {
  device: number;
  fingerprint: number;
  ip: number;
  network: number;
  /** The same over the day: a low and slow run keeps under any hourly count. */
  deviceDay: number;
  fingerprintDay: number;
  ipDay: number;
  networkDay: number;
}

type Column = "device_key" | "fingerprint_id" | "ip" | "network";
const COLUMNS: Array<[keyof AttemptKeys, Column, "device" | "fingerprint" | "ip" | "network"]> = [
  ["deviceKey", "device_key", "device"],
  ["fingerprintId", "fingerprint_id", "fingerprint"],
  ["ip", "ip", "ip"],
  ["network", "network", "network"],
];

/** The values an attempt count compares with, named apart from the other parameters of the history's statement. */
export interface AttemptParams {
  attempts_since: number;
  attempts_day_since: number;
  /** The request's own user (a known one), left out of the counts: its own retries are one account. */
  attempts_user: string;
  attempts_device_key: string;
  attempts_fingerprint_id: string;
  attempts_ip: string;
  attempts_network: string;
}

/** Which of the keys (in COLUMNS' order) the request has. */
export function attemptKeysPresent(keys: AttemptKeys): boolean[] {
  return COLUMNS.map(([k]) => !!keys[k]);
}

export function attemptParams(keys: AttemptKeys, since: { hour: number; day: number }, user: string | undefined): AttemptParams {
  return {
    attempts_since: since.hour,
    attempts_day_since: since.day,
    attempts_user: user ?? "",
    attempts_device_key: keys.deviceKey ?? "",
    attempts_fingerprint_id: keys.fingerprintId ?? "",
    attempts_ip: keys.ip ?? "",
    attempts_network: keys.network ?? "",
  };
}

/**
 * The accounts tried since `p.attempts_since` (the hour) and since `p.attempts_day_since` (the day) by each key present
 * (0 for a key the request lacks): distinct provisional users other than the request's own, so that one person
 * retrying a login counts once. Scalar subqueries of the history's one statement (HistoryRepo.scalars), columns
 * `attempts_<key>`.
 */
export function attemptCounts(eb: ExpressionBuilder<Database, never>, p: AttemptParams & { env: string }, present: boolean[]) {
  const tried = (column: Column, since: number) =>
    eb
      .selectFrom("login_attempts")
      .select(sql<number>`count(distinct user_id)`.as("n"))
      .where("environment_id", "=", p.env)
      .where(column, "=", p[`attempts_${column}`])
      .where("created_at", ">=", since)
      .where("user_id", "!=", p.attempts_user)
      // Only users still provisional: an honest first login is confirmed by the backend within seconds.
      .where((w) =>
        w.exists(
          w.selectFrom("users").select("users.id").whereRef("users.id", "=", "login_attempts.user_id").where("users.provisional", "=", 1),
        ),
      );
  // Every key over the hour (`attempts_<key>`) and over the day (`attempts_<key>Day`).
  return (
    [
      ["", p.attempts_since],
      ["Day", p.attempts_day_since],
    ] as const
  ).flatMap(([suffix, since]) =>
    COLUMNS.map(([, column, alias], i) =>
      present[i] ? tried(column, since).as(`attempts_${alias}${suffix}`) : eb.val(0).as(`attempts_${alias}${suffix}`),
    ),
  );
}

export function attemptCountsOf(row: Record<string, unknown>): AttemptCounts {
  return {
    device: Number(row.attempts_device ?? 0),
    fingerprint: Number(row.attempts_fingerprint ?? 0),
    ip: Number(row.attempts_ip ?? 0),
    network: Number(row.attempts_network ?? 0),
    deviceDay: Number(row.attempts_deviceDay ?? 0),
    fingerprintDay: Number(row.attempts_fingerprintDay ?? 0),
    ipDay: Number(row.attempts_ipDay ?? 0),
    networkDay: Number(row.attempts_networkDay ?? 0),
  };
}

/**
 * The browser an attempt is counted for: its visitor token when it sent one (a browser trying account after account
 * gets a device per account, but keeps its token), else its device.
 */
export function deviceKey(token: string | undefined, deviceId: string | undefined): string | undefined {
  return token ? `t:${token}` : deviceId ? `d:${deviceId}` : undefined;
}

export class LoginAttemptsRepo extends Repository {
  async record(row: LoginAttemptRow): Promise<void> {
    await queueInsert(this.db, "login_attempts", row);
  }
}

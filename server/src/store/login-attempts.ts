import { insertRow, prepared } from "./prepared.js";
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
}

type Column = "device_key" | "fingerprint_id" | "ip" | "network";
const COLUMNS: Array<[keyof AttemptKeys, Column, keyof AttemptCounts]> = [
  ["deviceKey", "device_key", "device"],
  ["fingerprintId", "fingerprint_id", "fingerprint"],
  ["ip", "ip", "ip"],
  ["network", "network", "network"],
];

/** One compiled statement per combination of keys a request has. */
const byShape = new Map<string, ReturnType<typeof countsQuery>>();

function countsQuery(present: boolean[]) {
  return prepared((db, p: { env: string; since: number; device_key: string; fingerprint_id: string; ip: string; network: string }) =>
    db.selectNoFrom((eb) =>
      COLUMNS.map(([, column, alias], i) =>
        present[i]
          ? eb
              .selectFrom("login_attempts")
              .select(eb.fn.countAll<number>().as("n"))
              .where("environment_id", "=", p.env)
              .where(column, "=", p[column])
              .where("created_at", ">=", p.since)
              // Only users still provisional: an honest first login is confirmed by the backend within seconds.
              .where((w) =>
                w.exists(
                  w
                    .selectFrom("users")
                    .select("users.id")
                    .whereRef("users.id", "=", "login_attempts.user_id")
                    .where("users.provisional", "=", 1),
                ),
              )
              .as(alias)
          : eb.val(0).as(alias),
      ),
    ),
  );
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
    await insertRow(this.db, "login_attempts", row);
  }

  /** Attempts since `since` on users still provisional, by each key the request has (0 for a key it lacks). */
  async counts(environmentId: string, keys: AttemptKeys, since: number): Promise<AttemptCounts> {
    const present = COLUMNS.map(([k]) => !!keys[k]);
    if (!present.some(Boolean)) return { device: 0, fingerprint: 0, ip: 0, network: 0 };
    const shape = present.map((x) => (x ? "1" : "0")).join("");
    let query = byShape.get(shape);
    if (!query) {
      query = countsQuery(present);
      byShape.set(shape, query);
    }
    const row = (await query.first(this.db, {
      env: environmentId,
      since,
      device_key: keys.deviceKey ?? "",
      fingerprint_id: keys.fingerprintId ?? "",
      ip: keys.ip ?? "",
      network: keys.network ?? "",
    })) as unknown as Record<string, unknown> | undefined;
    return {
      device: Number(row?.device ?? 0),
      fingerprint: Number(row?.fingerprint ?? 0),
      ip: Number(row?.ip ?? 0),
      network: Number(row?.network ?? 0),
    };
  }
}

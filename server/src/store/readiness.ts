// Readiness of the store (/readyz; docs/operations.md): can this instance serve requests now? Answering `select 1` was not
// enough: an empty re-created database, a read-only standby after a failover or a full disk answer it while every
// request fails. The probe reads the applied migrations and writes a row, in one transaction, and gives up after a
// deadline, so that a black-holed database is reported in time instead of hanging the health check. On PostgreSQL it
// also takes, briefly, the locks an evaluation's writes take: a lock on the evaluations table makes it not ready.
import fs from "node:fs";
import path from "node:path";
import { sql } from "kysely";
import type { Store } from "./db.js";
import { MIGRATION_NAMES } from "./migrations/index.js";

export interface ReadinessOptions {
  /** Give up (not ready) after this long. */
  deadlineMs: number;
  /** Embedded store: not ready when its disk has less free space than this. */
  minFreeBytes: number;
}

export class NotReady extends Error {}

/** The settings row every probe writes: proof that a write commits. */
const PROBE_KEY = "readiness_probe";

/**
 * PostgreSQL: the tables every evaluation writes (the evaluation, its device, a new user or fingerprint, the velocity
 * and rate-limit counters). The probe takes each in ROW EXCLUSIVE mode, the lock an INSERT or UPDATE takes, without
 * writing to them: a lock that stops evaluations (a `LOCK TABLE`, an ALTER, a non-concurrent index build, VACUUM FULL)
 * stops the probe too. Writing the settings row alone answered 200 through a 10-s lock on evaluations while no
 * evaluation completed. (The embedded store has one write lock for the whole file: its probe's write is enough.)
 */
const EVALUATION_TABLES = ["evaluations", "devices", "users", "fingerprints", "velocity_counters", "rate_limits"] as const;
/** How long the probe waits for those locks: a healthy store grants them at once (they conflict with no DML). */
const LOCK_WAIT_MS = 500;

export class StoreReadiness {
  /** One probe at a time: health checks arriving meanwhile wait for the one in flight instead of piling up. */
  private inFlight: Promise<void> | undefined;

  constructor(
    private readonly store: Store,
    private readonly opts: ReadinessOptions,
  ) {}

  /** Resolves when the store can serve; rejects with the reason otherwise, within the deadline. */
  async check(): Promise<void> {
    if (!this.inFlight) {
      this.inFlight = this.probe().finally(() => {
        this.inFlight = undefined;
      });
    }
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new NotReady(`The store did not answer within ${this.opts.deadlineMs} ms`)), this.opts.deadlineMs);
    });
    try {
      await Promise.race([this.inFlight, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async probe(): Promise<void> {
    const file = this.store.sqliteFile;
    if (file) {
      // A database file deleted or replaced under the running process: it still writes to the old one, which is gone
      // at the next start.
      const now = fs.statSync(file.path, { throwIfNoEntry: false });
      if (!now || now.ino !== file.ino || now.dev !== file.dev) throw new NotReady("The database file was removed or replaced");
      const disk = await fs.promises.statfs(path.dirname(file.path));
      const free = disk.bavail * disk.bsize;
      if (free < this.opts.minFreeBytes) throw new NotReady(`Only ${Math.floor(free / 1048576)} MiB free on the database's disk`);
    }
    await this.store.db.transaction().execute(async (tx) => {
      const applied = await sql<{ name: string }>`select name from tessera_migrations`.execute(tx);
      const names = new Set(applied.rows.map((r) => r.name));
      const missing = MIGRATION_NAMES.filter((m) => !names.has(m));
      if (missing.length) throw new NotReady(`The store is not migrated (missing ${missing.join(", ")}): run tessera migrate`);
      if (this.store.dialect === "postgres") {
        await sql`set local lock_timeout = ${sql.lit(`${LOCK_WAIT_MS}ms`)}`.execute(tx);
        try {
          await sql`lock table ${sql.join(EVALUATION_TABLES.map((t) => sql.table(t)))} in row exclusive mode`.execute(tx);
        } catch (e) {
          // lock_not_available: something holds a lock that evaluations wait for.
          if ((e as { code?: string }).code === "55P03")
            throw new NotReady(`Evaluations cannot be written: a table they write is locked (waited ${LOCK_WAIT_MS} ms)`);
          throw e;
        }
      }
      await tx
        .insertInto("settings")
        .values({ key: PROBE_KEY, value: String(Date.now()) })
        .onConflict((oc) => oc.column("key").doUpdateSet({ value: String(Date.now()) }))
        .execute();
    });
    // The embedded store commits in batches: ready only once this write is on disk.
    await this.store.durable();
  }
}

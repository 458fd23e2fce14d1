// Readiness of the store (SPEC.md 15, /readyz): can this instance serve requests now? Answering `select 1` was not
// enough: an empty re-created database, a read-only standby after a failover or a full disk answer it while every
// request fails. The probe reads the applied migrations and writes a row, in one transaction, and gives up after a
// deadline, so that a black-holed database is reported in time instead of hanging the health check.
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

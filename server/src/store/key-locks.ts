// Serialises the evaluations that share a key (docs/storage.md, "Concurrency on PostgreSQL"; docs/decisions/
// per-key-advisory-locks.md). An evaluation reads its counts (per browser, fingerprint, network, account) before its
// write transaction and writes what they count in it: two evaluations of one browser running side by side on
// PostgreSQL each read the count without the other, and a burst of twelve new accounts from one browser read "1"
// twelve times. Held around the whole evaluation, these locks make a burst count as the same requests sent in sequence,
// while evaluations sharing no key still run in parallel.
//
// Two levels. In this process, a queue per key: a waiting evaluation holds no connection, so a burst of one browser
// cannot take every connection of the pool from the others. Across processes (several instances on one database), on
// PostgreSQL, transaction-scoped advisory locks (pg_advisory_xact_lock) on a connection of a pool of their own (the
// reads of the evaluation run on the store's pool meanwhile: from the same pool, N held locks could starve the reads
// they wait for), taken in one sorted order so that two evaluations never wait for each other, released by ending
// that transaction after the evaluation's own has committed. The embedded store needs neither: every statement runs
// on its one connection, and a parallel burst already counts as the same requests in sequence there
// (server/test/concurrency.test.ts holds it on both stores).
import { createHash } from "node:crypto";

import type pg from "pg";

/** Advisory locks on PostgreSQL: ids taken in the order given, on a connection held until the answer is called. */
export interface AdvisoryLocks {
  hold(ids: readonly bigint[]): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/**
 * The advisory locks of a PostgreSQL store on `pool` (its own, store/db.ts): `begin` and every lock in one round trip
 * (a simple query of two statements; the ids are numbers this module made, never input), `rollback` to release.
 */
export function postgresAdvisoryLocks(pool: pg.Pool): AdvisoryLocks {
  return {
    async hold(ids) {
      const client = await pool.connect();
      try {
        // One `select` of every lock (PostgreSQL evaluates a target list in its order): the backend parses and plans one
        // statement instead of one per key.
        const locks = ids.map((id) => `pg_advisory_xact_lock(${BigInt.asIntN(64, id).toString()})`).join(", ");
        await client.query(`begin;select ${locks}`);
      } catch (e) {
        // The connection's state is unknown (a timeout mid-wait): the pool drops it rather than lend it again.
        client.release(e instanceof Error ? e : new Error(String(e)));
        throw e;
      }
      return async () => {
        try {
          await client.query("rollback");
          client.release();
        } catch (e) {
          client.release(e instanceof Error ? e : new Error(String(e)));
        }
      };
    },
    close: () => pool.end(),
  };
}

/** A key's advisory lock id: the first 64 bits of its SHA-256 (a collision only makes two keys wait for each other). */
export function lockId(key: string): bigint {
  return createHash("sha256").update(key).digest().readBigInt64BE(0);
}

export class KeyLocks {
  /** Per key, the end of the last holder queued on it in this process. */
  readonly #tails = new Map<string, Promise<void>>();

  /**
   * Without advisory locks (the embedded store) every holder runs at once and no key is even computed: a queue there
   * would add nothing to the counts and make the evaluations of one network (an office, a carrier's NAT, a load test
   * from one address) wait for each other's batch commit (store/db.ts), one batch each.
   */
  constructor(private readonly advisory?: AdvisoryLocks) {}

  /**
   * Runs `fn` once no other holder of any of the keys `keysOf` names runs, here or in another instance; answers its
   * result. Every key is queued at once, so holders only ever wait for those queued before them: no two wait for each
   * other.
   */
  async hold<T>(keysOf: () => readonly string[], fn: () => Promise<T>): Promise<T> {
    if (!this.advisory) return fn();
    const sorted = [...new Set(keysOf())].sort();
    if (sorted.length === 0) return fn();
    let done!: () => void;
    const mine = new Promise<void>((resolve) => {
      done = resolve;
    });
    const before = sorted.map((k) => this.#tails.get(k)).filter((p): p is Promise<void> => p !== undefined);
    for (const k of sorted) this.#tails.set(k, mine);
    const finish = () => {
      for (const k of sorted) if (this.#tails.get(k) === mine) this.#tails.delete(k);
      done();
    };
    let release: (() => Promise<void>) | undefined;
    try {
      await Promise.all(before);
      // Sorted by id: every instance takes a set's locks in one order.
      const ids = [...new Set(sorted.map(lockId))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      release = await this.advisory.hold(ids);
      return await fn();
    } finally {
      // After fn's transaction committed; the answer need not wait for the release, the next holder does.
      if (release) void release().finally(finish);
      else finish();
    }
  }
}

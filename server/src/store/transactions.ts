// The transaction convention: the open transaction is carried by the async context (AsyncLocalStorage), and every
// repository query runs on it. No method takes a transaction handle, so none can be forgotten: a read inside a
// transaction sees its own writes on PostgreSQL, and on the embedded store (one connection, held by the transaction)
// a query made inside it cannot wait for the connection forever.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Kysely } from "kysely";
import type { Database } from "./schema.js";

interface Open {
  db: Kysely<Database>;
  /** Run once the transaction has committed (dropped if it rolls back). */
  committed: Array<() => void>;
}

export class Transactions {
  readonly #current = new AsyncLocalStorage<Open>();

  constructor(private readonly store: Kysely<Database>) {}

  /** Where a query runs now: the open transaction of this async context, else the store. */
  get db(): Kysely<Database> {
    return this.#current.getStore()?.db ?? this.store;
  }

  /** Whether this async context is inside a transaction. */
  get active(): boolean {
    return this.#current.getStore() !== undefined;
  }

  /**
   * Runs `fn` in a transaction: committed when it resolves, rolled back when it throws. Inside a transaction already,
   * `fn` joins it (one unit of work, committed or rolled back as a whole by the outermost call).
   */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active) return fn();
    const committed: Array<() => void> = [];
    const result = await this.store.transaction().execute((db) => this.#current.run({ db, committed }, fn));
    for (const f of committed) this.outside(f);
    return result;
  }

  /**
   * Calls `f` once the current transaction has committed, outside it (at once outside any transaction). On the
   * embedded store a commit joins a batch made durable a moment later: work that tells the outside world awaits
   * `Repos.durable()` first.
   */
  afterCommit(f: () => void): void {
    const open = this.#current.getStore();
    if (open) open.committed.push(f);
    else f();
  }

  /**
   * Runs `fn` outside any transaction: work started from inside one that outlives it (a send after the response)
   * must not run its queries on a transaction that is committed by then.
   */
  outside<T>(fn: () => T): T {
    return this.#current.exit(fn);
  }
}

/**
 * Resolves on a later turn of the event loop. On the embedded store a query answers synchronously, so a loop of awaited
 * queries never lets a request in: a background job's steps (retention, roll-ups) await this between two, outside any
 * transaction, so that the requests waiting run (and the group commit commits) between steps.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Base of every repository: its queries run where `Transactions.db` says. */
export abstract class Repository {
  constructor(protected readonly transactions: Transactions) {}

  protected get db(): Kysely<Database> {
    return this.transactions.db;
  }
}

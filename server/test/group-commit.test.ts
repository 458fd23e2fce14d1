// The embedded store's group commit (store/db.ts): transactions of one event-loop turn share a batch, each can still
// fail alone, and nothing counts as committed before durable() resolves. Another connection to the same file is
// the witness: it sees only what the batch's COMMIT wrote.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import SQLite from "better-sqlite3";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GroupCommit, openStore, type Store } from "../src/store/db.js";

describe("group commit on the embedded store", () => {
  let dir: string;
  let store: Store;
  let witness: SQLite.Database;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "tessera-gc-"));
    const file = path.join(dir, "t.db");
    store = openStore({ sqlitePath: file, groupCommit: true });
    await sql`create table t (id text primary key, v integer not null)`.execute(store.db);
    await store.durable();
    witness = new SQLite(file, { readonly: true });
  });

  afterEach(async () => {
    witness.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const seen = () => (witness.prepare("select id from t order by id").all() as Array<{ id: string }>).map((r) => r.id);
  // biome-ignore lint/suspicious/noExplicitAny: the test table is not in the schema
  const db = () => store.db as any;

  it("commits the turn's transactions together, and only once durable() has resolved", async () => {
    await db()
      .transaction()
      .execute(async (tx: typeof store.db) => {
        await sql`insert into t (id, v) values ('a', 1)`.execute(tx);
      });
    await db()
      .transaction()
      .execute(async (tx: typeof store.db) => {
        await sql`insert into t (id, v) values ('b', 2)`.execute(tx);
      });
    // Both transactions have ended, but the batch is still open: another connection sees neither row yet.
    expect(seen()).toEqual([]);
    // The writing connection sees its own batch.
    expect((await sql<{ n: number }>`select count(*) as n from t`.execute(store.db)).rows[0]?.n).toBe(2);
    await store.durable();
    expect(seen()).toEqual(["a", "b"]);
  });

  it("rolls a failing transaction back alone, keeping the others of its batch", async () => {
    await db()
      .transaction()
      .execute(async (tx: typeof store.db) => {
        await sql`insert into t (id, v) values ('kept', 1)`.execute(tx);
      });
    await expect(
      db()
        .transaction()
        .execute(async (tx: typeof store.db) => {
          await sql`insert into t (id, v) values ('dropped', 1)`.execute(tx);
          // A constraint violation inside the transaction: everything it wrote goes, 'kept' stays.
          await sql`insert into t (id, v) values ('kept', 2)`.execute(tx);
        }),
    ).rejects.toThrow(/UNIQUE/);
    await db()
      .transaction()
      .execute(async (tx: typeof store.db) => {
        await sql`insert into t (id, v) values ('after', 3)`.execute(tx);
      });
    await store.durable();
    expect(seen()).toEqual(["after", "kept"]);
  });

  it("makes a write outside any transaction wait for the batch too", async () => {
    await sql`insert into t (id, v) values ('solo', 1)`.execute(store.db);
    expect(seen()).toEqual([]);
    await store.durable();
    expect(seen()).toEqual(["solo"]);
  });

  it("never commits half of a transaction that spans event-loop turns", async () => {
    const later = () => new Promise((r) => setTimeout(r, 10));
    const failing = db()
      .transaction()
      .execute(async (tx: typeof store.db) => {
        await sql`insert into t (id, v) values ('half', 1)`.execute(tx);
        await later();
        // The batch's commit came due meanwhile: it waited, so the rollback still undoes 'half'.
        expect(seen()).toEqual([]);
        throw new Error("roll back");
      });
    await expect(failing).rejects.toThrow("roll back");
    await db()
      .transaction()
      .execute(async (tx: typeof store.db) => {
        await sql`insert into t (id, v) values ('first', 1)`.execute(tx);
        await later();
        expect(seen()).toEqual([]);
        await sql`insert into t (id, v) values ('second', 2)`.execute(tx);
      });
    await store.durable();
    expect(seen()).toEqual(["first", "second"]);
  });

  it("commits what is pending when the store closes", async () => {
    await sql`insert into t (id, v) values ('last', 1)`.execute(store.db);
    await store.close();
    expect(seen()).toEqual(["last"]);
    // afterEach closes again: reopen so that it has something to close.
    store = openStore({ sqlitePath: path.join(dir, "t.db"), groupCommit: true });
  });
});

describe("the WAL starts over under steady writes (docs/operations.md)", () => {
  // A long WAL whose frames the checkpointing thread has nearly all copied is finished on the writing connection,
  // between batches, so that the next write starts the WAL over (its header gets a new salt); SQLite's own fallback
  // would otherwise checkpoint inside commits on the event loop.
  let dir: string;
  let sqlite: SQLite.Database;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "tessera-wal-"));
    sqlite = new SQLite(path.join(dir, "t.db"));
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("wal_autocheckpoint = 0");
    sqlite.exec("create table t (id integer primary key, v blob not null)");
  });
  afterEach(() => {
    sqlite.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const salt = () => fs.readFileSync(path.join(dir, "t.db-wal")).subarray(16, 24).toString("hex");
  const turn = () => new Promise((r) => setImmediate(r));
  const write = (group: GroupCommit, rows: number) => {
    group.open();
    const insert = sqlite.prepare("insert into t (v) values (?)");
    for (let i = 0; i < rows; i++) insert.run(Buffer.alloc(3000, i));
    group.flush();
  };

  it("after the thread reports a long WAL nearly copied, the next write starts it over; without the report it grows on", async () => {
    const group = new GroupCommit(sqlite);
    write(group, 3000);
    const first = salt();
    write(group, 10);
    expect(salt()).toBe(first);

    group.walProgress({ log: 3000, checkpointed: 2900 });
    await turn();
    await turn();
    write(group, 10);
    expect(salt()).not.toBe(first);
  });

  it("waits for the open batch to commit, and leaves a short WAL or one far behind alone", async () => {
    const group = new GroupCommit(sqlite);
    write(group, 3000);
    const first = salt();
    group.walProgress({ log: 100, checkpointed: 100 });
    group.walProgress({ log: 3000, checkpointed: 1000 });
    await turn();
    await turn();
    write(group, 10);
    expect(salt()).toBe(first);

    // A transaction that spans event-loop turns holds its batch open: nothing is checkpointed inside it.
    group.begin();
    sqlite.prepare("insert into t (v) values (?)").run(Buffer.alloc(10));
    group.walProgress({ log: 3000, checkpointed: 3000 });
    await turn();
    await turn();
    expect(sqlite.inTransaction).toBe(true);
    group.commit();
    await turn();
    await turn();
    await turn();
    expect(sqlite.inTransaction).toBe(false);
    write(group, 10);
    expect(salt()).not.toBe(first);
  });
});

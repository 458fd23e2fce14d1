// The embedded store's group commit (store/db.ts): transactions of one event-loop turn share a batch, each can still
// fail alone, and nothing counts as committed before durable() resolves. Another connection to the same file is
// the witness: it sees only what the batch's COMMIT wrote.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import SQLite from "better-sqlite3";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Checkpointer, type CheckpointProgress, type RestartOutcome, startCheckpointer } from "../src/store/checkpointer.js";
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

  it("runs a read outside any transaction inside the turn's batch: the write lock is taken once for the turn", async () => {
    const other = new SQLite(path.join(dir, "t.db"), { timeout: 0 });
    try {
      expect((await sql<{ n: number }>`select count(*) as n from t`.execute(store.db)).rows[0]?.n).toBe(0);
      // The read opened the batch (BEGIN IMMEDIATE): another writer is kept out until the batch's commit.
      expect(() => other.exec("begin immediate")).toThrow(/locked|busy/i);
      await store.durable();
      other.exec("begin immediate");
      other.exec("rollback");
    } finally {
      other.close();
    }
  });

  it("answers a read outside any transaction while another process holds the write lock (the read runs alone)", async () => {
    const other = new SQLite(path.join(dir, "t.db"));
    try {
      other.exec("begin immediate");
      other.exec("insert into t (id, v) values ('other', 1)");
      expect((await sql<{ n: number }>`select count(*) as n from t`.execute(store.db)).rows[0]?.n).toBe(0);
      other.exec("commit");
      expect((await sql<{ n: number }>`select count(*) as n from t`.execute(store.db)).rows[0]?.n).toBe(1);
    } finally {
      other.close();
    }
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
  // A long WAL whose frames the checkpointing thread has nearly all copied is handed to the thread between batches:
  // it copies the rest and writes first to the new WAL (its header gets a new salt), so that no checkpoint and no
  // fsync runs on the event loop; SQLite's own fallback would otherwise checkpoint inside commits there.
  let dir: string;
  let file: string;
  let sqlite: SQLite.Database;
  /** Every statement the writing connection runs. */
  let ran: string[];
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "tessera-wal-"));
    file = path.join(dir, "t.db");
    sqlite = new SQLite(file);
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("wal_autocheckpoint = 0");
    sqlite.exec("create table t (id integer primary key, v blob not null)");
    ran = [];
    for (const method of ["exec", "pragma", "prepare"] as const) {
      const original = sqlite[method].bind(sqlite) as (...a: unknown[]) => unknown;
      // biome-ignore lint/suspicious/noExplicitAny: a spy in front of each of the connection's entry points
      (sqlite as any)[method] = (text: string, ...rest: unknown[]) => {
        ran.push(text);
        return original(text, ...rest);
      };
    }
  });
  afterEach(() => {
    sqlite.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const salt = () => fs.readFileSync(`${file}-wal`).subarray(16, 24).toString("hex");
  const turn = () => new Promise((r) => setImmediate(r));
  const write = (group: GroupCommit, rows: number) => {
    group.open();
    const insert = sqlite.prepare("insert into t (v) values (?)");
    for (let i = 0; i < rows; i++) insert.run(Buffer.alloc(3000, i));
    group.flush();
  };
  const handedBack = async (group: GroupCommit) => {
    for (let i = 0; i < 500 && group.paused; i++) await new Promise((r) => setTimeout(r, 10));
    expect(group.paused).toBe(false);
  };

  it("after the thread reports a long WAL nearly copied, the thread starts it over; the writing connection never checkpoints", async () => {
    const checkpointer = startCheckpointer(file);
    try {
      const group = new GroupCommit(sqlite, checkpointer);
      write(group, 3000);
      const first = salt();
      write(group, 10);
      expect(salt()).toBe(first);

      group.walProgress({ log: 10_000, checkpointed: 9_900 });
      expect(group.paused).toBe(true);
      await handedBack(group);
      // The thread wrote the new WAL's first frame (and flushed its header): before any write of this connection.
      const second = salt();
      expect(second).not.toBe(first);
      write(group, 10);
      expect(salt()).toBe(second);
      expect(sqlite.prepare("select count(*) as n from t").get()).toEqual({ n: 3020 });
      expect(ran.filter((s) => /checkpoint/i.test(s))).toEqual([]);
    } finally {
      await checkpointer.stop();
    }
  });

  it("a checkpoint of the thread that copied every frame (the writer idle) does not make the writing connection start the WAL over", async () => {
    const checkpointer = startCheckpointer(file);
    try {
      const group = new GroupCommit(sqlite, checkpointer);
      write(group, 100);
      const complete = new Promise<void>((resolve) =>
        checkpointer.onProgress((p) => {
          if (p.log > 0 && p.checkpointed === p.log) resolve();
        }),
      );
      await complete;
      const first = salt();
      // SQLite starts the WAL over at the first write after a complete checkpoint, with the header's fsync: not here.
      write(group, 10);
      expect(salt()).toBe(first);
    } finally {
      await checkpointer.stop();
    }
  });

  it("without the report, or with a short WAL or one far behind, the WAL grows on", async () => {
    const checkpointer = startCheckpointer(file);
    try {
      const group = new GroupCommit(sqlite, checkpointer);
      write(group, 3000);
      const first = salt();
      group.walProgress({ log: 100, checkpointed: 100 });
      group.walProgress({ log: 10_000, checkpointed: 1_000 });
      expect(group.paused).toBe(false);
      await turn();
      write(group, 10);
      expect(salt()).toBe(first);
    } finally {
      await checkpointer.stop();
    }
  });

  it("hands the connection over only between flows, with the batch committed, and queries wait meanwhile", async () => {
    let report!: (p: CheckpointProgress) => void;
    let done!: (o: RestartOutcome) => void;
    const handOffs: boolean[] = [];
    const thread: Checkpointer = {
      onProgress: (l) => {
        report = l;
      },
      restartWal: () => {
        handOffs.push(sqlite.inTransaction);
        return new Promise((r) => {
          done = r;
        });
      },
      stop: async () => {},
    };
    const group = new GroupCommit(sqlite, thread);

    // A flow holds the connection (a transaction spanning turns): nothing is handed over until it ends.
    await group.acquire();
    group.begin();
    sqlite.prepare("insert into t (v) values (?)").run(Buffer.alloc(10));
    report({ log: 10_000, checkpointed: 10_000 });
    let next = false;
    const waiting = group.acquire().then(() => {
      next = true;
    });
    await turn();
    await turn();
    expect(handOffs).toEqual([]);
    group.commit();
    group.release();
    await turn();
    await turn();
    // Handed over once the flow ended, its batch committed first; the next flow waits for the thread.
    expect(handOffs).toEqual([false]);
    expect(next).toBe(false);
    done({ restarted: true });
    await waiting;
    expect(next).toBe(true);
    expect(group.paused).toBe(false);
    group.release();

    // A write outside any transaction opened a batch this turn: it is committed before the hand-off.
    group.open();
    sqlite.prepare("insert into t (v) values (?)").run(Buffer.alloc(10));
    report({ log: 10_000, checkpointed: 10_000 });
    await turn();
    expect(handOffs).toEqual([false, false]);
    done({ restarted: true });
    await turn();
    expect(group.paused).toBe(false);
    expect(sqlite.prepare("select count(*) as n from t").get()).toEqual({ n: 2 });
  });
});

describe("the store under writes (docs/decisions/checkpoint-handoff.md)", () => {
  it("starts its WAL over under writes, answers the queries made meanwhile, and keeps every write", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tessera-walstore-"));
    const file = path.join(dir, "t.db");
    const store = openStore({ sqlitePath: file, groupCommit: true });
    try {
      // biome-ignore lint/suspicious/noExplicitAny: the test table is not in the schema
      const db = store.db as any;
      await sql`create table t (id integer primary key, v blob not null)`.execute(db);
      const salt = () => fs.readFileSync(`${file}-wal`).subarray(16, 24).toString("hex");
      let written = 0;
      const writeMore = async () => {
        await db.transaction().execute(async (tx: typeof store.db) => {
          for (let i = 0; i < 100; i++) await sql`insert into t (v) values (${Buffer.alloc(3000, i)})`.execute(tx);
        });
        written += 100;
        await store.durable();
      };
      for (let i = 0; i < 90; i++) await writeMore();
      const first = salt();
      // The thread checkpoints every 500 ms; keep writing (a little) until it has been handed the WAL.
      for (let i = 0; i < 100 && salt() === first; i++) {
        await new Promise((r) => setTimeout(r, 50));
        await writeMore();
      }
      expect(salt()).not.toBe(first);
      const { rows } = await sql<{ n: number }>`select count(*) as n from t`.execute(db);
      expect(rows[0]?.n).toBe(written);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

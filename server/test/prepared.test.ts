// Prepared queries (store/prepared.ts): built and compiled once per dialect, run with each call's values, in or out
// of a transaction, on both stores.
import SQLite from "better-sqlite3";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../src/store/db.js";
import { migrate } from "../src/store/migrations/index.js";
import { insertRow, newestFirst, prepared, updateRow } from "../src/store/prepared.js";
import { describeStores, freshDatabase, type TestDatabase } from "./helpers.js";

describeStores("prepared queries on %s", (kind) => {
  let tdb: TestDatabase;
  let store: Store;
  beforeAll(async () => {
    tdb = await freshDatabase(kind);
    store = openStore({ databaseUrl: tdb.env.DATABASE_URL, sqlitePath: tdb.env.DATA_DIR && `${tdb.env.DATA_DIR}/t.db` });
    await migrate(store.db);
    await store.db.insertInto("settings").values({ key: "a", value: "1" }).execute();
  });
  afterAll(async () => {
    await store?.close();
    await tdb?.drop();
  });

  let builds = 0;
  const byKey = prepared((db, p: { key: string }) => {
    builds++;
    return db.selectFrom("settings").select(["key", "value"]).where("key", "=", p.key);
  });

  it("compiles once and runs with each call's values", async () => {
    await insertRow(store.db, "settings", { key: "b", value: "2" });
    expect(await byKey.first(store.db, { key: "a" })).toEqual({ key: "a", value: "1" });
    expect(await byKey.first(store.db, { key: "b" })).toEqual({ key: "b", value: "2" });
    expect(await byKey.first(store.db, { key: "zzz" })).toBeUndefined();
    expect(builds).toBe(1);
  });

  it("plans a statement once per connection on PostgreSQL (generic plans), in and out of a transaction", async () => {
    if (kind !== "postgres") return;
    // A prepared query runs on a client of the pool (store/db.ts), a transaction on another: both planned alike.
    const shown = await sql<{ plan_cache_mode: string }>`show plan_cache_mode`.execute(store.db);
    expect(shown.rows[0]?.plan_cache_mode).toBe("force_generic_plan");
    const inTx = await store.db.transaction().execute((tx) => sql<{ plan_cache_mode: string }>`show plan_cache_mode`.execute(tx));
    expect(inTx.rows[0]?.plan_cache_mode).toBe("force_generic_plan");
  });

  it("runs inside a transaction, which sees its own writes and rolls them back", async () => {
    await expect(
      store.db.transaction().execute(async (tx) => {
        await insertRow(tx, "settings", { key: "c", value: "3" });
        expect(await byKey.first(tx, { key: "c" })).toEqual({ key: "c", value: "3" });
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await byKey.first(store.db, { key: "c" })).toBeUndefined();
    expect(builds).toBe(1);
  });

  it("binds a value that looks like SQL as a value", async () => {
    const key = "x' or '1'='1";
    await insertRow(store.db, "settings", { key, value: "4" });
    expect(await byKey.first(store.db, { key })).toEqual({ key, value: "4" });
    expect((await byKey.rows(store.db, { key: "' or 1=1 --" })).length).toBe(0);
  });

  it("updates a row by id, only the columns given", async () => {
    await insertRow(store.db, "users", USER);
    expect(await updateRow(store.db, "users", USER.id, { email: "new@example.com", phone: undefined, updated_at: 2 })).toBe(true);
    expect(await updateRow(store.db, "users", "usr_missing", { email: "x@example.com" })).toBe(false);
    const row = await store.db.selectFrom("users").selectAll().where("id", "=", USER.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ email: "new@example.com", phone: "+33600000000", updated_at: 2, metadata: "{}" });
  });

  it("answers the newest rows first, whether or not they all fit in the limit", async () => {
    const created = [5, 1, 9, 3, 7];
    for (const [i, at] of created.entries())
      await insertRow(store.db, "users", { ...USER, id: `usr_n${i}`, environment_id: "env_newest", external_id: `n${i}`, created_at: at });
    const newest = newestFirst("created_at", (db, p: { env: string }) =>
      db.selectFrom("users").select(["external_id", "created_at"]).where("environment_id", "=", p.env),
    );
    const all = await newest.rows(store.db, { env: "env_newest" }, 10);
    expect(all.map((r) => r.created_at)).toEqual([9, 7, 5, 3, 1]);
    const three = await newest.rows(store.db, { env: "env_newest" }, 3);
    expect(three.map((r) => r.created_at)).toEqual([9, 7, 5]);
    expect(await newest.rows(store.db, { env: "env_none" }, 3)).toEqual([]);
  });
});

const USER = {
  id: "usr_prepared",
  environment_id: "env_prepared",
  external_id: "ext",
  email: "old@example.com",
  phone: "+33600000000",
  email_verified: 0,
  phone_verified: 0,
  metadata: "{}",
  groups: "[]",
  skip_challenge_count: 0,
  converted_at: null,
  created_at: 1,
  updated_at: 1,
};

describe("prepared queries on the embedded store with group commit (run on the connection directly)", () => {
  let tdb: TestDatabase;
  let store: Store;
  const byKey = prepared((db, p: { key: string }) => db.selectFrom("settings").select(["key", "value"]).where("key", "=", p.key));
  beforeAll(async () => {
    tdb = await freshDatabase("sqlite");
    store = openStore({ sqlitePath: `${tdb.env.DATA_DIR}/g.db`, groupCommit: true });
    await migrate(store.db);
  });
  afterAll(async () => {
    await store?.close();
    await tdb?.drop();
  });

  it("waits for another flow's transaction instead of reading or writing inside it", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let inserted!: () => void;
    const insertedOnce = new Promise<void>((r) => {
      inserted = r;
    });
    const tx = store.db.transaction().execute(async (t) => {
      await insertRow(t, "settings", { key: "partial", value: "1" });
      inserted();
      await held;
      throw new Error("roll back");
    });
    await insertedOnce;
    // Outside the transaction: neither may run before it ends (the read would see its uncommitted row, and the
    // write would be undone by its rollback).
    let readDone = false;
    const read = byKey.first(store.db, { key: "partial" }).then((r) => {
      readDone = true;
      return r;
    });
    const write = insertRow(store.db, "settings", { key: "outside", value: "2" });
    await new Promise((r) => setTimeout(r, 20));
    expect(readDone).toBe(false);
    release();
    await expect(tx).rejects.toThrow("roll back");
    expect(await read).toBeUndefined();
    expect(await write).toBe(true);
    await store.durable();
    expect(await byKey.first(store.db, { key: "outside" })).toEqual({ key: "outside", value: "2" });
  });

  it("runs inside a transaction it is given, and commits with the batch", async () => {
    await store.db.transaction().execute(async (t) => {
      await insertRow(t, "settings", { key: "inside", value: "3" });
      expect(await byKey.first(t, { key: "inside" })).toEqual({ key: "inside", value: "3" });
      expect(await updateRow(t, "settings" as never, "unused", {})).toBe(false);
    });
    await store.durable();
    expect(await byKey.first(store.db, { key: "inside" })).toEqual({ key: "inside", value: "3" });
  });

  it("runs a LIMIT given as a parameter with its value in the text, and the same rows", async () => {
    for (const key of ["l1", "l2", "l3"]) await insertRow(store.db, "settings", { key, value: key });
    await store.durable();
    // What SQLite was asked to run: each statement's text (a bound LIMIT made SQLite prepare it again at every run).
    const texts: string[] = [];
    const probe = new SQLite(":memory:");
    const proto = Object.getPrototypeOf(probe.prepare("select 1")) as { all: (...a: unknown[]) => unknown };
    probe.close();
    const all = proto.all;
    proto.all = function (this: { source: string }, ...args: unknown[]) {
      texts.push(this.source);
      return all.apply(this, args);
    };
    const keys = prepared((db, p: { prefix: string; limit: number }) =>
      db.selectFrom("settings").select("key").where("key", "like", p.prefix).orderBy("key").limit(p.limit),
    );
    try {
      expect((await keys.rows(store.db, { prefix: "l%", limit: 2 })).map((r) => r.key)).toEqual(["l1", "l2"]);
      expect((await keys.rows(store.db, { prefix: "l%", limit: 0 })).map((r) => r.key)).toEqual([]);
      // Kysely's own path (not a prepared query) goes through the same statement cache.
      const viaKysely = await store.db.selectFrom("settings").select("key").where("key", "like", "l%").orderBy("key").limit(1).execute();
      expect(viaKysely.map((r) => r.key)).toEqual(["l1"]);
      // Not a small whole number: bound as before.
      expect((await keys.rows(store.db, { prefix: "l%", limit: 5000 })).map((r) => r.key)).toEqual(["l1", "l2", "l3"]);
    } finally {
      proto.all = all;
    }
    const limits = texts.map((t) => /limit (\S+)$/.exec(t)?.[1]);
    expect(limits).toEqual(["2", "0", "1", "?"]);
  });
});

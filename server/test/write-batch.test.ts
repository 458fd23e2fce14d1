// A transaction's queued writes (store/write-batch.ts, docs/decisions/write-batch.md): on PostgreSQL one statement of
// data-modifying CTEs, sent before the transaction's next other statement or at its commit, without `begin`/`commit`
// when nothing else was sent; on the embedded store each write runs at once. The same outcomes on both stores.
import { afterAll, beforeAll, expect, it } from "vitest";
import { openStore, type Store } from "../src/store/db.js";
import { migrate } from "../src/store/migrations/index.js";
import { prepared, queueInsert, queueUpdate } from "../src/store/prepared.js";
import { describeStores, freshDatabase, type TestDatabase } from "./helpers.js";
import { pgStatementsDuring } from "./statement-hook.js";

const operator = (id: string, email: string) => ({
  id,
  email,
  password_hash: null,
  all_projects_role: null,
  link_hash: null,
  link_expires_at: null,
  created_at: 1,
  updated_at: 1,
});

const settingValue = prepared((db, p: { key: string }) => db.selectFrom("settings").select("value").where("key", "=", p.key));

/** The statements pg sends while `fn` runs (PostgreSQL only; none on the embedded store). */
async function sentDuring(fn: () => Promise<unknown>): Promise<string[]> {
  return (await pgStatementsDuring(fn)).sent;
}

describeStores("queued writes on %s", (kind) => {
  let tdb: TestDatabase;
  let store: Store;
  beforeAll(async () => {
    tdb = await freshDatabase(kind);
    store = openStore({ databaseUrl: tdb.env.DATABASE_URL, sqlitePath: tdb.env.DATA_DIR && `${tdb.env.DATA_DIR}/t.db` });
    await migrate(store.db);
  });
  afterAll(async () => {
    await store?.close();
    await tdb?.drop();
  });

  const value = async (key: string) => (await settingValue.first(store.db, { key }))?.value;

  it("a transaction of queued writes to several tables commits them all, as one statement on PostgreSQL", async () => {
    const sent = await sentDuring(() =>
      store.db.transaction().execute(async (tx) => {
        await queueInsert(tx, "settings", { key: "b1", value: "1" });
        await queueInsert(tx, "operators", operator("op_b1", "b1@example.com"));
      }),
    );
    expect(await value("b1")).toBe("1");
    const op = await store.db.selectFrom("operators").select("email").where("id", "=", "op_b1").executeTakeFirst();
    expect(op?.email).toBe("b1@example.com");
    if (kind === "postgres") {
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatch(/^with "w1" as \(insert into "settings" .*\) insert into "operators"/);
    }
  });

  it("a queued write that fails takes the transaction's other writes with it", async () => {
    await expect(
      store.db.transaction().execute(async (tx) => {
        await queueInsert(tx, "settings", { key: "b2", value: "2" });
        // The id of the operator above: a primary-key violation, at once on SQLite, at the commit on PostgreSQL.
        await queueInsert(tx, "operators", operator("op_b1", "again@example.com"));
      }),
    ).rejects.toThrow();
    expect(await value("b2")).toBeUndefined();
  });

  it("a read in the transaction sees the writes queued before it, and a rollback undoes them", async () => {
    await expect(
      store.db.transaction().execute(async (tx) => {
        await queueInsert(tx, "settings", { key: "b3", value: "3" });
        expect((await settingValue.first(tx, { key: "b3" }))?.value).toBe("3");
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await value("b3")).toBeUndefined();
  });

  it("two queued writes to one table apply in their order (the second sends the first)", async () => {
    await store.db.insertInto("operators").values(operator("op_b4", "b4@example.com")).execute();
    const sent = await sentDuring(() =>
      store.db.transaction().execute(async (tx) => {
        await queueInsert(tx, "settings", { key: "b4", value: "first" });
        await queueUpdate(tx, "operators", "op_b4", { email: "b4-new@example.com", updated_at: 2 });
        await queueInsert(tx, "settings", { key: "b4b", value: "second" });
      }),
    );
    expect(await value("b4")).toBe("first");
    expect(await value("b4b")).toBe("second");
    const op = await store.db.selectFrom("operators").select("email").where("id", "=", "op_b4").executeTakeFirst();
    expect(op?.email).toBe("b4-new@example.com");
    if (kind === "postgres") expect(sent.map((s) => s.split(" ")[0])).toEqual(["begin", "with", "insert", "commit"]);
  });
});

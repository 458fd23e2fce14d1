// Prepared queries (store/prepared.ts): built and compiled once per dialect, run with each call's values, in or out
// of a transaction, on both stores.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../src/store/db.js";
import { migrate } from "../src/store/migrations/index.js";
import { insertRow, prepared } from "../src/store/prepared.js";
import { freshDatabase, STORES, type TestDatabase } from "./helpers.js";

describe.each(STORES)("prepared queries on %s", (kind) => {
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
});

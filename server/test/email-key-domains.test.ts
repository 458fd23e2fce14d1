// Migration 39 (docs/identity.md, "Accounts"): the stored email keys of addresses written outside ASCII are computed
// again with the domain as the mailer delivers to it; its copy of the key is the live one's.
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountEmailKey } from "../src/pipeline/account-email.js";
import type { Store } from "../src/store/db.js";
import * as m39 from "../src/store/migrations/39-email-key-domains.js";
import { describeStores, storeBefore, type TestDatabase } from "./helpers.js";

const FORMS = [
  "Plain.Person@Gmail.com",
  "x@ｇｍａｉｌ.com",
  "x.y+tag@ⓖⓜⓐⓘⓛ.com",
  "x@gm\u00adail.com",
  "name@bücher.example",
  "name@xn--bcher-kva.example",
  "NAME+tag@Company.example",
  "not-an-address",
  "@nolocal.example",
];

describe("migration 39's email key", () => {
  it("is the live accountEmailKey for every form it meets", () => {
    for (const email of FORMS) expect(m39.accountEmailKey(email), email).toBe(accountEmailKey(email));
    expect(accountEmailKey("x.y+tag@ⓖⓜⓐⓘⓛ.com")).toBe("xy@gmail.com");
    expect(accountEmailKey("name@bücher.example")).toBe(accountEmailKey("name@xn--bcher-kva.example"));
  });
});

describeStores("migration 39 on %s", (kind) => {
  let database: TestDatabase;
  let store: Store;
  let db: Kysely<unknown>;
  const user = (id: string, email: string) => ({
    id,
    environment_id: "env_m39",
    external_id: id,
    email,
    email_key: m39.accountEmailKey(email, false),
    created_at: 1_700_000_000_000,
    updated_at: 1_700_000_000_000,
  });
  const keys = async () =>
    (await store.db.selectFrom("users").select(["id", "email_key"]).where("environment_id", "=", "env_m39").orderBy("id").execute()).map(
      (r) => `${r.id} ${r.email_key}`,
    );

  beforeAll(async () => {
    // The store as it was before migration 39, holding users keyed then.
    const before = await storeBefore(kind, m39);
    ({ database, store } = before);
    db = store.db as unknown as Kysely<unknown>;
    await before.db
      .insertInto("users")
      .values([
        user("u1", "x.y@ｇｍａｉｌ.com"),
        user("u2", "a.b@gmail.com"),
        user("u3", "name@bücher.example"),
        user("u4", "plain@example.org"),
      ])
      .execute();
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it("keys the addresses written outside ASCII by their delivered domain, leaves the others, and goes back down", async () => {
    expect(await keys()).toEqual(["u1 x.y@ｇｍａｉｌ.com", "u2 ab@gmail.com", "u3 name@bücher.example", "u4 plain@example.org"]);
    await m39.up(db);
    expect(await keys()).toEqual(["u1 xy@gmail.com", "u2 ab@gmail.com", "u3 name@xn--bcher-kva.example", "u4 plain@example.org"]);
    await m39.down(db);
    expect(await keys()).toEqual(["u1 x.y@ｇｍａｉｌ.com", "u2 ab@gmail.com", "u3 name@bücher.example", "u4 plain@example.org"]);
    await m39.up(db);
  });
});

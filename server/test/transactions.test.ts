// The transaction convention (store/transactions.ts): the open transaction is carried by the async context and every
// repository call joins it. Pinned on both stores: a repository read inside a transaction completes on the embedded
// store (one connection, held by the transaction: a read outside it waited for ever) and sees the transaction's own
// uncommitted write, which nothing outside the transaction sees; nested calls join; and no code outside the store
// opens a transaction or passes a handle.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServices, type Services } from "../src/services.js";
import { describeStores, eventUser, migratedDatabase, type TestDatabase, testConfig } from "./helpers.js";

describeStores("transactions on %s", (kind) => {
  let db: TestDatabase;
  let s: Services;
  let envId: string;
  beforeAll(async () => {
    db = await migratedDatabase(kind);
    s = await createServices({ ...testConfig(db.env), WORKERS: false });
    envId = (await s.repos.projects.create("Tx")).environments.development.id;
  });
  afterAll(async () => {
    await s?.close();
    await db?.drop();
  });

  it("a repository read inside a transaction runs in it and sees its uncommitted write", async () => {
    const seen = await s.repos.transaction(async () => {
      await s.repos.users.upsert(envId, "inside", { source: "server", email: "in@example.com" });
      return s.repos.users.findByExternal(envId, "inside");
    });
    expect(seen?.external_id).toBe("inside");
    expect(seen?.email).toBe("in@example.com");
  });

  it("work outside the transaction does not see its uncommitted write; after the commit it does", async () => {
    const before = await s.repos.transaction(async () => {
      await s.repos.users.upsert(envId, "pending", { source: "server" });
      // On the embedded store the only connection is this transaction's: outside it nothing can read meanwhile.
      if (kind === "sqlite") return "skipped";
      return (await s.repos.outside(() => s.repos.users.findByExternal(envId, "pending"))) ?? "not seen";
    });
    if (kind === "postgres") expect(before).toBe("not seen");
    expect((await s.repos.users.findByExternal(envId, "pending"))?.external_id).toBe("pending");
  });

  it("a nested transaction joins the outer one: a failure rolls back both", async () => {
    await expect(
      s.repos.transaction(async () => {
        await s.repos.users.upsert(envId, "outer", { source: "server" });
        await s.repos.transaction(async () => {
          await s.repos.users.upsert(envId, "inner", { source: "server" });
        });
        expect(await s.repos.users.findByExternal(envId, "inner")).toBeDefined();
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await s.repos.users.findByExternal(envId, "outer")).toBeUndefined();
    expect(await s.repos.users.findByExternal(envId, "inner")).toBeUndefined();
  });

  it("an event emitted in a transaction is written with the change, and rolled back with it", async () => {
    await expect(
      s.repos.transaction(async () => {
        await s.events.emit(envId, "user.converted", { account: "gone-with-rollback", user: eventUser("gone-with-rollback") });
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    await s.repos.transaction(() => s.events.emit(envId, "user.converted", { account: "kept", user: eventUser("kept") }));
    const payloads = (await s.repos.webhooks.listEvents(envId)).map((e) => e.payload).join("\n");
    expect(payloads).toContain("kept");
    expect(payloads).not.toContain("gone-with-rollback");
  });
});

describe("the transaction convention in the source", () => {
  const src = path.resolve(import.meta.dirname, "../src");
  const files = (fs.readdirSync(src, { recursive: true }) as string[])
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
    .map((f) => ({ name: f.split(path.sep).join("/"), text: fs.readFileSync(path.join(src, f), "utf8") }));

  it("only store/transactions.ts opens transactions (readiness probes the raw store apart)", () => {
    const opening = files.filter((f) => /\.transaction\(\)/.test(f.text)).map((f) => f.name);
    expect(opening.sort()).toEqual(["store/readiness.ts", "store/transactions.ts"]);
  });

  it("no repository method takes a transaction handle", () => {
    const repos = files.filter((f) => f.name.startsWith("store/") && /extends Repository/.test(f.text));
    expect(repos.length).toBeGreaterThan(15);
    for (const f of repos) {
      const body = f.text.slice(f.text.indexOf("extends Repository"));
      expect(body, f.name).not.toMatch(/\b(db|tx)\??: Kysely<Database>/);
    }
  });
});

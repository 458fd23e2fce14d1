// The evaluation's `checks` snapshot holds exactly the registry's checks (server/src/checks/index.ts), its risks are
// recorded beside them, and every family of checks has its file of HTTP cases here (harness.ts, describeChecks).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Evaluation } from "@tessera/sdk/contract";
import { afterAll, beforeAll, expect, it } from "vitest";
import { FAMILIES, REGISTERED_CHECKS } from "../../src/checks/index.js";
import { describeStores, fakeComponents, startTestApp, type TestApp } from "../helpers.js";
import { strict } from "../strict.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));

it("every family of checks has a file of cases", () => {
  const files = fs.readdirSync(HERE).filter((f) => f.endsWith(".test.ts") && f !== "snapshot.test.ts");
  expect(files.map((f) => f.replace(".test.ts", "")).sort()).toEqual(Object.keys(FAMILIES).sort());
});

describeStores("the checks snapshot on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind);
  });
  afterAll(async () => t?.close());

  it("holds exactly the registry's checks, in its order, and the risks beside them", async () => {
    const r = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/visit",
      payload: {
        client_id: t.clientId,
        user: "snapshot-user",
        signals: { components: fakeComponents("snapshot"), visitor_token: "tok-snapshot-xxxxxxxx" },
      },
    });
    expect(r.statusCode, r.body).toBe(200);
    const read = await t.app.inject({
      method: "GET",
      url: `/v3/evaluations/${(r.json() as { evaluation_id: string }).evaluation_id}`,
      headers: t.auth,
    });
    const ev = strict(Evaluation).parse(read.json());
    // Risks are recorded beside the checks; `risk.<name>.score|severity` are derived for policies, not stored as checks.
    expect(Object.keys(ev.checks ?? {})).toEqual(REGISTERED_CHECKS.map((c) => c.name));
    // The evaluation lists the risks detected: every one it lists has a score, and every category it lists exists.
    const categories = [
      "account_sharing",
      "ato",
      "bot",
      "content_abuse",
      "fake_account",
      "linked_accounts",
      "multi_accounting",
      "repeat_trial",
    ];
    expect(ev.risks?.length).toBeGreaterThan(0);
    for (const r of ev.risks ?? []) {
      expect(categories).toContain(r.name);
      expect(r.score).toBeGreaterThan(0);
    }
  });
});

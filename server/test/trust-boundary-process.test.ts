// The trust boundary's tests that run the real CLI and server as child processes (the vitest project "process",
// vite.config.ts); the attacks replayed in process are in trust-boundary.test.ts.
import { userToken } from "@tessera/sdk/node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildApp } from "../src/app.js";
import { createServices } from "../src/services.js";
import { BROWSER_UA, describeStores, freshDatabase, migratedDatabase, type TestDatabase, testConfig } from "./helpers.js";
import { createProjectCli, runCli, startServer } from "./server-process.js";

// Identity verification set up the way an operator does it: the CLI creates the secret (shown once) and requires it.
describeStores("identity verification through the CLI on %s", (kind) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await migratedDatabase(kind);
  });
  afterAll(async () => db?.drop());

  it("keys identity-secret prints a secret once; projects settings --identity-verification required enforces it", async () => {
    const project = await createProjectCli(db.env);
    const out = JSON.parse((await runCli(db.env, ["keys", "identity-secret", project.id, "--env", "development", "--json"])).trim());
    expect(out).toMatchObject({ environment: "development", identity_secret: expect.stringMatching(/^idsec_/) });
    await runCli(db.env, ["projects", "settings", project.id, "--env", "development", "--identity-verification", "required"]);
    await expect(
      runCli(db.env, ["projects", "settings", project.id, "--env", "development", "--identity-verification", "sometimes"]),
    ).rejects.toThrow(/--identity-verification must be one of off, optional, required/);
    const services = await createServices(testConfig({ ...db.env, WORKERS: "0" }));
    const app = await buildApp(services, { logger: false });
    try {
      const login = async (body: Record<string, unknown>) =>
        app.inject({
          method: "POST",
          url: "/v3/client/evaluate/login",
          headers: { "user-agent": BROWSER_UA },
          payload: { client_id: project.clientId, user: "cli_user", ...body },
        });
      expect((await login({})).statusCode).toBe(401);
      const ok = await login({ user_token: await userToken(out.identity_secret, "cli_user") });
      expect(ok.statusCode, ok.body).toBe(200);
    } finally {
      await app.close();
      await services.close();
    }
  });
});

// The very first start of a server with an empty store (BOOTSTRAP_PROJECT=1), as the real process prints it.
describeStores("first start on %s", (kind) => {
  it("in production prints no secret and creates no project; in development prints the development test key only", async () => {
    const db = await freshDatabase(kind);
    try {
      const prod = await startServer({ ...db.env, NODE_ENV: "production", BOOTSTRAP_PROJECT: "1" });
      await prod.stop();
      expect(prod.stdout()).toContain("No project yet");
      expect(prod.stdout() + prod.stderr()).not.toMatch(/sk_(live|test)_/);
      expect((await runCli(db.env, ["projects", "list", "--json"])).trim()).toBe("[]");

      const dev = await startServer({ ...db.env, NODE_ENV: "development", BOOTSTRAP_PROJECT: "1" });
      await dev.stop();
      expect(dev.stdout()).toMatch(/development secret: +sk_test_/);
      expect(dev.stdout() + dev.stderr()).not.toMatch(/sk_live_/);
    } finally {
      await db.drop();
    }
  });
});

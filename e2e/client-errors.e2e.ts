// A newcomer's first mistakes, as the page sees them in Chromium: the SDK used with a wrong client id, or with a client
// id from an origin it does not allow, rejects at once with the server's own code and message (an ApiError), after one
// request — not a NetworkError "could not reach the server" after three requests and three CORS errors in the console.
import { createServer, type Server } from "node:http";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser, launchBrowser } from "./helpers/browser.js";
import { freePort, type RunningServer, startServer } from "./helpers/server.js";

let server: RunningServer;
let site: Server;
let siteUrl: string;
let browser: Browser;

beforeAll(async () => {
  server = await startServer({ LOG_LEVEL: "warn" });
  // The customer's page, on an origin of its own (not one the production client id allows), loading the SDK by its tag.
  const port = await freePort();
  siteUrl = `http://127.0.0.1:${port}`;
  site = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><html lang="en"><title>shop</title><script src="${server.url}/sdk/v3/tessera.js"></script></html>`);
  });
  await new Promise<void>((r) => site.listen(port, "127.0.0.1", r));
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  site?.close();
  await server?.dispose();
});

interface Outcome {
  name: string;
  code: string;
  status?: number;
  message: string;
}

/** Opens the shop's page, logs in through the SDK with `clientId`; answers the rejection, the requests and the console. */
async function loginWith(clientId: string): Promise<{ outcome: Outcome; requests: number; corsErrors: string[] }> {
  const page: Page = await browser.newPage();
  let requests = 0;
  const corsErrors: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes("/v3/client/evaluate/")) requests++;
  });
  page.on("console", (m) => {
    if (m.type() === "error" && /CORS/i.test(m.text())) corsErrors.push(m.text());
  });
  await page.goto(siteUrl);
  const outcome = await page.evaluate(
    ({ clientId, baseUrl }) => {
      const T = (window as unknown as { Tessera: new (o: unknown) => { evaluate: { login(o: unknown): Promise<unknown> } } }).Tessera;
      return new T({ clientId, baseUrl }).evaluate.login({ user: "acct_42" }).then(
        () => ({ name: "resolved", code: "", message: "" }),
        (e: { name: string; code: string; status?: number; message: string }) => ({
          name: e.name,
          code: e.code,
          status: e.status,
          message: e.message,
        }),
      );
    },
    { clientId, baseUrl: server.url },
  );
  await page.close();
  return { outcome: outcome as Outcome, requests, corsErrors };
}

describe("the SDK's refusals in the browser", () => {
  it("a wrong client id rejects with the server's 401 and its message, after one request", async () => {
    const { outcome, requests, corsErrors } = await loginWith("pk_live_typo");
    expect(outcome).toMatchObject({ name: "ApiError", code: "unauthorized", status: 401 });
    expect(outcome.message).toMatch(/^Tessera: Unknown client_id: pass the client id of one of your project's environments/);
    expect(requests).toBe(1);
    expect(corsErrors).toEqual([]);
  });

  it("a client id from an origin it does not allow rejects with the server's 403 naming the origin and the fix", async () => {
    const { outcome, requests, corsErrors } = await loginWith(server.project.environments.production.client_id);
    expect(outcome).toMatchObject({ name: "ApiError", code: "forbidden", status: 403 });
    expect(outcome.message).toContain(
      `Origin ${siteUrl} is not allowed for this client_id: add it to the production environment's allowed origins`,
    );
    expect(requests).toBe(1);
    expect(corsErrors).toEqual([]);
  });

  it("look-alike: the development client id from a local origin is let through", async () => {
    const { outcome, requests } = await loginWith(server.project.environments.development.client_id);
    expect(outcome.name).toBe("resolved");
    expect(requests).toBe(1);
  });
});

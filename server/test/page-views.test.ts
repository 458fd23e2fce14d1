// The light path of a page view (pipeline/page-view.ts, docs/scaling.md): a view (`access`) from the browser a user
// signed in on, carrying its own visitor token and its own fingerprint, is decided on the light path (the evaluation
// result's path marker) and re-checks only what can change per view; a first view, a view from a token never seen, a
// view naming another account and a login take the full path. On both stores.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { EvaluationResult } from "../src/pipeline/ports.js";
import { describeStores, fakeComponents, startTestApp, type TestApp } from "./helpers.js";

describeStores("page views of a known session on %s", (kind) => {
  let t: TestApp;
  const paths = new Map<string, EvaluationResult["path"] | "full">();
  beforeAll(async () => {
    t = await startTestApp(kind);
    t.services.pipeline.observers.push((result) => paths.set(result.evaluation.id, result.path ?? "full"));
  });
  afterAll(async () => t?.close());

  // Each browser on its own network: never-seen browsers and unconfirmed accounts on one network are an attack's signature.
  const networks = new Map<string, number>();
  const ipOf = (browser: string) => {
    if (!networks.has(browser)) networks.set(browser, networks.size + 1);
    return `10.31.${networks.get(browser)}.2`;
  };
  const evaluate = async (action: string, user: string, browser: string, token = `tok-${browser}-xxxxxxxx`) => {
    const r = await t.app.inject({
      method: "POST",
      url: `/v3/client/evaluate/${action}`,
      headers: { "x-forwarded-for": ipOf(browser) },
      payload: { client_id: t.clientId, user, signals: { components: fakeComponents(browser), visitor_token: token } },
    });
    expect(r.statusCode, r.body).toBe(200);
    const { evaluation_id } = r.json() as { evaluation_id: string };
    const ev = (await t.app.inject({ method: "GET", url: `/v3/evaluations/${evaluation_id}`, headers: t.auth })).json() as {
      verdict: string;
      reasons: string[];
      checks: Record<string, unknown>;
    };
    return { id: evaluation_id, path: paths.get(evaluation_id), verdict: ev.verdict, reasons: ev.reasons, checks: ev.checks };
  };

  /** A login the backend lets in (consumes): the browser is then one the user signed in on. */
  const signIn = async (user: string, browser: string) => {
    const login = await evaluate("login", user, browser);
    expect(login.verdict, login.reasons.join()).toBe("allow");
    expect((await t.app.inject({ method: "POST", url: `/v3/evaluations/${login.id}/consume`, headers: t.auth })).statusCode).toBe(200);
    return login;
  };

  it("a view from the browser the user signed in on takes the light path; it re-checks only what a view can change", async () => {
    const login = await signIn("pv-alice", "pv-alice-laptop");
    expect(login.path).toBe("full");
    const view = await evaluate("access", "pv-alice", "pv-alice-laptop");
    expect(view.path).toBe("known_session_view");
    expect(view.verdict).toBe("allow");
    // Re-checked: the account's devices, the IP's network, the pace, the signed-in browser.
    expect(view.checks).toHaveProperty("device_count");
    expect(view.checks).toHaveProperty("ip_is_anonymous");
    expect(view.checks).toHaveProperty("has_high_velocity");
    expect(view.checks.is_new_device).toBe(false);
    // Not read by any policy of `access`: not loaded on the light path (the login computed it).
    expect(login.checks).toHaveProperty("fingerprint_user_count");
    expect(view.checks).not.toHaveProperty("fingerprint_user_count");
    // The next login from that browser is a full evaluation again.
    expect((await evaluate("login", "pv-alice", "pv-alice-laptop")).path).toBe("full");
  });

  it("a first view, a view from an unknown token and a view naming another account take the full path", async () => {
    // Signed in first: never-seen browsers and unconfirmed accounts that came before would make its login a challenge.
    await signIn("pv-carol", "pv-carol-laptop");
    // A browser whose first request is a view: no device of the user yet.
    const first = await evaluate("access", "pv-bob", "pv-bob-laptop");
    expect(first.path).toBe("full");
    expect(first.checks).toHaveProperty("fingerprint_user_count");
    // A second view of it: still no device on the account (a page view attaches none), so still the full path.
    expect((await evaluate("access", "pv-bob", "pv-bob-laptop")).path).toBe("full");

    // A login let in that the backend never confirmed: the account's device, but not a browser the user signed in on.
    expect((await evaluate("login", "pv-erin", "pv-erin-laptop")).verdict).toBe("allow");
    expect((await evaluate("access", "pv-erin", "pv-erin-laptop")).path).toBe("full");

    // The user's own components with a token never seen (cleared storage, or someone replaying them): recognised, not trusted.
    expect((await evaluate("access", "pv-carol", "pv-carol-laptop", "tok-never-seen-xxxxxxxx")).path).toBe("full");
    // The user's own browser and token naming another account.
    expect((await evaluate("access", "pv-dave", "pv-carol-laptop")).path).toBe("full");
    // Drifted components on the user's own token: the fingerprint moves, the full path follows it.
    const drifted = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/access",
      headers: { "x-forwarded-for": ipOf("pv-carol-laptop") },
      payload: {
        client_id: t.clientId,
        user: "pv-carol",
        signals: {
          components: fakeComponents("pv-carol-laptop", { screenResolution: [1, 1] }),
          visitor_token: "tok-pv-carol-laptop-xxxxxxxx",
        },
      },
    });
    expect(drifted.statusCode).toBe(200);
    expect(paths.get((drifted.json() as { evaluation_id: string }).evaluation_id)).toBe("full");
  });
});

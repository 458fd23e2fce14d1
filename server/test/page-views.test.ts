// The light path of a page view (pipeline/page-view.ts, docs/scaling.md): a view (`access`) from the browser a user
// signed in on, carrying its own visitor token and its own fingerprint, is decided on the light path (the evaluation
// result's path marker) and re-checks only what can change per view; a first view, a view from a token never seen, a
// view naming another account and a login take the full path. Repeat views store less (docs/decisions/page-view-light-path.md):
// they share their session's access record and leave the familiarity ledger as the user's last trusted evaluation left it,
// while each keeps an evaluation of its own that the backend reads and consumes once. On both stores.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { EvaluationResult } from "../src/pipeline/ports.js";
import { describeStores, fakeComponents, startTestApp, type TestApp } from "./helpers.js";

/** A client of the test app: evaluations from browsers each on its own network, and sign-ins the backend lets in. */
function browsers(app: () => TestApp) {
  const paths = new Map<string, EvaluationResult["path"] | "full">();
  const observe = () => app().services.pipeline.observers.push((result) => paths.set(result.evaluation.id, result.path ?? "full"));
  // Each browser on its own network: never-seen browsers and unconfirmed accounts on one network are an attack's signature.
  const networks = new Map<string, number>();
  const ipOf = (browser: string) => {
    if (!networks.has(browser)) networks.set(browser, networks.size + 1);
    return `10.31.${networks.get(browser)}.2`;
  };
  const evaluate = async (action: string, user: string, browser: string, token = `tok-${browser}-xxxxxxxx`, ip = ipOf(browser)) => {
    const r = await app().app.inject({
      method: "POST",
      url: `/v3/client/evaluate/${action}`,
      headers: { "x-forwarded-for": ip },
      remoteAddress: ip,
      payload: { client_id: app().clientId, user, signals: { components: fakeComponents(browser), visitor_token: token } },
    });
    expect(r.statusCode, r.body).toBe(200);
    const { evaluation_id } = r.json() as { evaluation_id: string };
    const ev = (await app().app.inject({ method: "GET", url: `/v3/evaluations/${evaluation_id}`, headers: app().auth })).json() as {
      verdict: string;
      reasons: string[];
      checks: Record<string, unknown>;
      access?: string;
    };
    return {
      id: evaluation_id,
      path: paths.get(evaluation_id),
      verdict: ev.verdict,
      reasons: ev.reasons,
      checks: ev.checks,
      access: ev.access,
    };
  };

  /** A login the backend lets in (consumes): the browser is then one the user signed in on. */
  const signIn = async (user: string, browser: string) => {
    const login = await evaluate("login", user, browser);
    expect(login.verdict, login.reasons.join()).toBe("allow");
    expect((await app().app.inject({ method: "POST", url: `/v3/evaluations/${login.id}/consume`, headers: app().auth })).statusCode).toBe(
      200,
    );
    return login;
  };

  return { observe, evaluate, signIn, paths, ipOf };
}

describeStores("page views of a known session on %s", (kind) => {
  let t: TestApp;
  const { observe, evaluate, signIn, paths, ipOf } = browsers(() => t);
  beforeAll(async () => {
    t = await startTestApp(kind);
    observe();
  });
  afterAll(async () => t?.close());

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

describeStores("repeat page views of a known session on %s", (kind) => {
  let t: TestApp;
  const { observe, evaluate, signIn } = browsers(() => t);
  beforeAll(async () => {
    t = await startTestApp(kind);
    observe();
  });
  afterAll(async () => t?.close());

  const consume = (id: string) => t.app.inject({ method: "POST", url: `/v3/evaluations/${id}/consume`, headers: t.auth });
  const history = async (device: string) =>
    (
      (await t.app.inject({ method: "GET", url: `/v2/proj/access-history?device=${device}`, headers: t.auth })).json() as {
        docs: Array<{ id: string; createdAt: string; updatedAt: string }>;
      }
    ).docs;

  it("repeat views of a known session share one access record; each has its own evaluation, read and consumed once", async () => {
    await signIn("pv-frank", "pv-frank-laptop");
    const views = [];
    for (let i = 0; i < 3; i++) views.push(await evaluate("access", "pv-frank", "pv-frank-laptop"));
    expect(views.map((v) => v.path)).toEqual(["known_session_view", "known_session_view", "known_session_view"]);
    expect(new Set(views.map((v) => v.id)).size).toBe(3);
    expect(views[0]?.access).toMatch(/^acc_/);
    expect(views.map((v) => v.access)).toEqual([views[0]?.access, views[0]?.access, views[0]?.access]);
    const row = await t.services.repos.db
      .selectFrom("evaluations")
      .select("device_id")
      .where("id", "=", views[0]?.id ?? "")
      .executeTakeFirst();
    const device = row?.device_id as string;
    expect(device).toMatch(/^dev_/);
    // The legacy history lists the session once: created at its first view, updated at its latest.
    const docs = await history(device);
    expect(docs.map((d) => d.id)).toEqual([views[0]?.access]);
    expect(Date.parse(docs[0]!.updatedAt)).toBeGreaterThanOrEqual(Date.parse(docs[0]!.createdAt));
    // Every view's evaluation is the backend's to read by id and to consume exactly once.
    for (const v of views) {
      expect(v.verdict).toBe("allow");
      expect((await consume(v.id)).statusCode).toBe(200);
      expect((await consume(v.id)).statusCode).toBe(409);
    }
    // Listed by the evaluations search like any other.
    const listed = (
      await t.app.inject({ method: "GET", url: `/v3/evaluations?device=${device}&action=access`, headers: t.auth })
    ).json() as { data?: Array<{ id: string }> };
    for (const v of views) expect(listed.data?.map((e) => e.id)).toContain(v.id);
  });

  it("a stranger with the account's name and the browser's components opens no session on the user's access record", async () => {
    await signIn("pv-gina", "pv-gina-laptop");
    const own = await evaluate("access", "pv-gina", "pv-gina-laptop");
    expect(own.path).toBe("known_session_view");
    // The same public client id, the account's name, copied components, another token and network.
    const stranger = await evaluate("access", "pv-gina", "pv-gina-laptop", "tok-stranger-gina-xxxxxxxx", "10.31.250.9");
    expect(stranger.path).toBe("full");
    expect(stranger.access).not.toBe(own.access);
    // A guessed token: never the device's own, so still a record of its own.
    const guessed = await evaluate("access", "pv-gina", "pv-gina-laptop", "tok-pv-gina-laptop-xxxxxxxy", "10.31.250.9");
    expect(guessed.path).toBe("full");
    expect(guessed.access).not.toBe(own.access);
    // The owner's next view is still the owner's session.
    expect((await evaluate("access", "pv-gina", "pv-gina-laptop")).access).toBe(own.access);
  });

  it("a repeat view writes no familiar values the ledger has; a view from a new address writes its new ones", async () => {
    await signIn("pv-hana", "pv-hana-laptop");
    const { repos } = t.services;
    const user = await repos.db.selectFrom("users").select("id").where("external_id", "=", "pv-hana").executeTakeFirstOrThrow();
    const ledger = async () =>
      (
        await repos.db
          .selectFrom("familiarity")
          .select(["dimension", "value", "last_seen"])
          .where("user_id", "=", user.id)
          .orderBy("dimension")
          .orderBy("value")
          .execute()
      ).map((r) => `${r.dimension}=${r.value}@${Number(r.last_seen)}`);
    // The first view on the browser is the first evaluation trusted at its insert there: its values are written.
    expect((await evaluate("access", "pv-hana", "pv-hana-laptop")).path).toBe("known_session_view");
    await repos.durable();
    const afterFirst = await ledger();
    expect(afterFirst.length).toBeGreaterThan(0);
    const view = await evaluate("access", "pv-hana", "pv-hana-laptop");
    expect(view.path).toBe("known_session_view");
    await repos.durable();
    // Moments later, with the same values: the ledger has them, nothing is written.
    expect(await ledger()).toEqual(afterFirst);
    // Another address of the same browser: its new values enter the ledger at once.
    const moved = await evaluate("access", "pv-hana", "pv-hana-laptop", undefined, "10.31.200.7");
    expect(moved.path).toBe("known_session_view");
    await repos.durable();
    expect((await ledger()).some((r) => r.startsWith("ip=10.31.200.7@"))).toBe(true);
  });
});

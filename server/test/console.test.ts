// The console's server side (docs/console.md) on both stores: operators and sessions, roles, project isolation, CSRF,
// the sign-in rate limit, the audit log, and the APIs behind the console (evaluation search with filters and cursor
// pages, users, statistics, backtest, settings and keys), used alike with a secret key and with a session.
import {
  AuditLogPage,
  BacktestResult,
  ConsoleSession,
  ErrorBody,
  EvaluationPage,
  EvaluationStats,
  UserDetail,
  UserSearchResult,
} from "@tessera/sdk/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rollUp } from "../src/console/rollup-job.js";
import { CONSOLE_ORIGIN, consoleCall, type Operator, operator } from "./console-helpers.js";
import { describeStores, fakeComponents, startTestApp, type TestApp } from "./helpers.js";
import { eventLoopTurnsDuring } from "./statement-hook.js";
import { strict } from "./strict.js";

describeStores("console on %s", (kind) => {
  let t: TestApp;
  let dev: string;
  let owner: Operator;
  let analyst: Operator;
  let viewer: Operator;
  let stranger: Operator;
  let otherProject: string;
  let otherDev: string;
  // 12 evaluations: users u0..u3 (u0 twice as many), two IPs, actions login and signup, one deny policy for u3.
  const made: { id: string; user: string; ip: string; action: string }[] = [];

  const evaluate = async (action: string, body: Record<string, unknown>, auth = t.auth) => {
    const r = await t.app.inject({ method: "POST", url: `/v3/evaluate/${action}`, headers: auth, payload: body });
    expect(r.statusCode, r.body).toBe(200);
    return r.json() as { id: string; verdict: string; device?: string };
  };

  beforeAll(async () => {
    t = await startTestApp(kind);
    dev = t.project.environments.development.id;
    const other = await t.services.repos.projects.create("Stranger's project");
    otherProject = other.id;
    otherDev = other.environments.development.id;
    owner = await operator(t, "owner@example.com", "owner", [t.project.id]);
    analyst = await operator(t, "analyst@example.com", "analyst", [t.project.id]);
    viewer = await operator(t, "viewer@example.com", "viewer", [t.project.id]);
    stranger = await operator(t, "stranger@example.com", "owner", [otherProject]);
    const deny = await t.app.inject({
      method: "POST",
      url: "/v3/policies",
      headers: t.auth,
      payload: { name: "Deny u3", priority: 900, conditions: { check: "user_id", op: "eq", value: "u3" }, verdict: "deny" },
    });
    expect(deny.statusCode).toBe(201);
    for (let i = 0; i < 12; i++) {
      const user = `u${i % 4 === 1 ? 0 : i % 4}`;
      const ip = i % 2 ? "81.2.69.142" : "203.0.113.9";
      const action = i % 3 ? "login" : "signup";
      const ev = await evaluate(action, { user, email: `${user}@example.com`, ip });
      made.push({ id: ev.id, user, ip, action });
    }
    // Another project's evaluation, which nothing of this project's may reveal.
    await evaluate("login", { user: "u0", ip: "203.0.113.9" }, { authorization: `Bearer ${other.environments.development.secret}` });
  });
  afterAll(async () => t?.close());

  const page = (r: { statusCode: number; body: string; json(): unknown }) => {
    expect(r.statusCode, r.body).toBe(200);
    return strict(EvaluationPage).parse(r.json());
  };
  const list = (query: string) => t.app.inject({ method: "GET", url: `/v3/evaluations?${query}`, headers: t.auth });

  it("evaluations are listed newest first, and cursor pages cover every one exactly once", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const p = page(await list(`limit=5${cursor ? `&cursor=${cursor}` : ""}`));
      seen.push(...p.data.map((e) => e.id));
      cursor = p.next_cursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual([...made].reverse().map((m) => m.id));
  });

  it("each filter narrows the list to what it names, and filters combine", async () => {
    const ids = async (q: string) => page(await list(q)).data.map((e) => e.id);
    const expected = (f: (m: (typeof made)[number]) => boolean) =>
      made
        .filter(f)
        .map((m) => m.id)
        .reverse();
    expect(await ids("user=u0")).toEqual(expected((m) => m.user === "u0"));
    expect(await ids("email=u2%40example.com")).toEqual(expected((m) => m.user === "u2"));
    expect(await ids("ip=81.2.69.142")).toEqual(expected((m) => m.ip === "81.2.69.142"));
    expect(await ids("action=signup")).toEqual(expected((m) => m.action === "signup"));
    expect(await ids("verdict=deny")).toEqual(expected((m) => m.user === "u3"));
    expect(await ids("user=u0&action=login")).toEqual(expected((m) => m.user === "u0" && m.action === "login"));
    // Server evaluations carry no browser: a client one has a device.
    const client = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/login",
      payload: { client_id: t.clientId, user: "d1", signals: { components: fakeComponents("d1"), visitor_token: "tok-d1-aaaaaa" } },
    });
    const id = client.json().evaluation_id as string;
    made.push({ id, user: "d1", ip: "127.0.0.1", action: "login" });
    const device = (await t.app.inject({ method: "GET", url: `/v3/evaluations/${id}`, headers: t.auth })).json().device as string;
    expect(device).toMatch(/^dev_/);
    expect(await ids(`device=${device}`)).toEqual([id]);
    expect(await ids("user=nobody")).toEqual([]);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect(await ids(`from=${future}`)).toEqual([]);
    expect(await ids(`to=${future}&limit=100`)).toHaveLength(made.length);
  });

  it("bad filters are a 400 naming the parameter", async () => {
    for (const [q, param] of [
      ["verdict=maybe", "verdict"],
      ["ip=not-an-ip", "ip"],
      ["limit=101", "limit"],
      ["cursor=garbage", "cursor"],
      ["from=yesterday", "from"],
    ]) {
      const r = await list(q!);
      expect(r.statusCode, q).toBe(400);
      expect(strict(ErrorBody).parse(r.json()).error.param).toBe(param);
    }
  });

  it("a session sees what the environment's secret sees; another project's operator sees nothing of it", async () => {
    const bySession = page(await consoleCall(t, viewer, dev, "GET", "/v3/evaluations?limit=100"));
    expect(bySession.data.map((e) => e.id)).toEqual(page(await list("limit=100")).data.map((e) => e.id));
    const strangerCall = await consoleCall(t, stranger, dev, "GET", "/v3/evaluations");
    expect(strangerCall.statusCode).toBe(404);
    const one = await consoleCall(t, stranger, dev, "GET", `/v3/evaluations/${made[0]!.id}`);
    expect(one.statusCode).toBe(404);
    // In its own project, our evaluation does not exist either.
    const inOwn = await consoleCall(t, stranger, otherDev, "GET", `/v3/evaluations/${made[0]!.id}`);
    expect(inOwn.statusCode).toBe(404);
    const ownList = page(await consoleCall(t, stranger, otherDev, "GET", "/v3/evaluations?limit=100"));
    expect(ownList.data).toHaveLength(1);
  });

  it("the session lists only the operator's projects, with its role", async () => {
    const r = await t.app.inject({ method: "GET", url: "/console/api/session", headers: { cookie: analyst.cookie } });
    const s = strict(ConsoleSession).parse(r.json());
    expect(s.projects.map((p) => [p.id, p.role])).toEqual([[t.project.id, "analyst"]]);
    expect(s.projects[0]!.environments.map((e) => e.name).sort()).toEqual(["development", "production"]);
    expect((await t.app.inject({ method: "GET", url: "/console/api/session" })).statusCode).toBe(401);
  });

  it("a viewer cannot change a policy, an analyst can change lists but not policies, an owner can do both", async () => {
    const policies = (await t.app.inject({ method: "GET", url: "/v3/policies", headers: t.auth })).json().data as {
      id: string;
      enabled: boolean;
    }[];
    const target = policies[0]!;
    const patch = { enabled: !target.enabled };
    const byViewer = await consoleCall(t, viewer, dev, "PATCH", `/v3/policies/${target.id}`, patch);
    expect(byViewer.statusCode).toBe(403);
    expect(strict(ErrorBody).parse(byViewer.json()).error.message).toMatch(/viewer/);
    expect((await consoleCall(t, viewer, dev, "POST", "/v3/lists/blocked/add", { values: ["1.2.3.4"] })).statusCode).toBe(403);
    expect((await consoleCall(t, analyst, dev, "PATCH", `/v3/policies/${target.id}`, patch)).statusCode).toBe(403);
    expect((await consoleCall(t, analyst, dev, "POST", "/v3/lists/blocked/add", { values: ["1.2.3.4"] })).statusCode).toBe(200);
    const byOwner = await consoleCall(t, owner, dev, "PATCH", `/v3/policies/${target.id}`, patch);
    expect(byOwner.statusCode, byOwner.body).toBe(200);
    expect(byOwner.json().enabled).toBe(!target.enabled);
    // Unchanged by the refused calls: the viewer's and the analyst's patches were not applied before the owner's.
    const back = await consoleCall(t, owner, dev, "PATCH", `/v3/policies/${target.id}`, { enabled: target.enabled });
    expect(back.json().enabled).toBe(target.enabled);
  });

  it("a change from another origin, or with no origin, is refused (CSRF); the same call from the console passes", async () => {
    const body = { values: ["10.0.0.1"] };
    const foreign = await consoleCall(t, owner, dev, "POST", "/v3/lists/csrf/add", body, { origin: "https://evil.example" });
    expect(foreign.statusCode).toBe(403);
    const none = await t.app.inject({
      method: "POST",
      url: "/v3/lists/csrf/add",
      headers: { cookie: owner.cookie, "x-tessera-environment": dev },
      payload: body,
    });
    expect(none.statusCode).toBe(403);
    const signIn = await t.app.inject({
      method: "POST",
      url: "/console/api/sign-in",
      headers: { origin: "https://evil.example" },
      payload: { email: owner.email, password: owner.password },
    });
    expect(signIn.statusCode).toBe(403);
    const entries = (await t.app.inject({ method: "GET", url: "/v3/lists/csrf", headers: t.auth })).json();
    expect(entries.total).toBe(0);
    expect((await consoleCall(t, owner, dev, "POST", "/v3/lists/csrf/add", body)).statusCode).toBe(200);
  });

  it("a route the console has no business with answers 403 to a session; a cookie without the header is no credential", async () => {
    expect((await consoleCall(t, owner, dev, "POST", `/v3/evaluations/${made[0]!.id}/consume`)).statusCode).toBe(403);
    const noHeader = await t.app.inject({ method: "GET", url: "/v3/evaluations", headers: { cookie: owner.cookie } });
    expect(noHeader.statusCode).toBe(401);
    const signedOut = await consoleCall(t, { ...owner, cookie: "tessera_console=forged" }, dev, "GET", "/v3/evaluations");
    expect(signedOut.statusCode).toBe(401);
  });

  it("every change is in the audit log with who, what, when, before and after; keys are named by prefix only", async () => {
    const created = await consoleCall(t, owner, dev, "POST", "/v3/policies", {
      name: "Audited",
      conditions: { check: "ip_is_tor", op: "eq", value: true },
      verdict: "deny",
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().id as string;
    expect((await consoleCall(t, owner, dev, "PATCH", `/v3/policies/${id}`, { priority: 77 })).statusCode).toBe(200);
    expect(
      (await t.app.inject({ method: "PATCH", url: `/v3/policies/${id}`, headers: t.auth, payload: { priority: 78 } })).statusCode,
    ).toBe(200);
    expect((await consoleCall(t, viewer, dev, "PATCH", `/v3/policies/${id}`, { priority: 1 })).statusCode).toBe(403);
    const log = strict(AuditLogPage).parse((await consoleCall(t, viewer, dev, "GET", `/v3/audit-log?target=${id}`)).json());
    const [byKey, update] = log.data;
    // The creation names what it created, so it is found by target too.
    expect(log.data.map((e) => e.action)).toEqual(["policy.update", "policy.update", "policy.create"]);
    expect(update!.actor).toMatchObject({ type: "operator", label: "owner@example.com" });
    expect(update!.status).toBe(200);
    expect((update!.before as { priority: number }).priority).toBe(0);
    expect((update!.after as { priority: number }).priority).toBe(77);
    expect(byKey!.actor.type).toBe("key");
    expect(byKey!.actor.label).toBe(`${t.secret.slice(0, 12)}…`);
    expect(JSON.stringify(log)).not.toContain(t.secret);
    const creates = strict(AuditLogPage).parse((await consoleCall(t, viewer, dev, "GET", "/v3/audit-log?action=policy.create")).json());
    expect(creates.data.some((e) => (e.after as { id?: string }).id === id)).toBe(true);
    // Another project's operator reads none of it.
    const theirs = strict(AuditLogPage).parse((await consoleCall(t, stranger, otherDev, "GET", "/v3/audit-log?limit=100")).json());
    expect(theirs.data.filter((e) => e.target?.id === id)).toEqual([]);
  });

  it("sign-in: a wrong password is a 401, and past the limit per email a 429 with Retry-After, even for the right one", async () => {
    const attempt = (password: string) =>
      t.app.inject({
        method: "POST",
        url: "/console/api/sign-in",
        headers: { origin: CONSOLE_ORIGIN },
        payload: { email: analyst.email, password },
      });
    const ok = await attempt(analyst.password);
    expect(ok.statusCode).toBe(200);
    expect(String(ok.headers["set-cookie"])).toMatch(/HttpOnly/);
    expect(String(ok.headers["set-cookie"])).toMatch(/SameSite=Strict/);
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await attempt("wrong password!!")).statusCode);
    expect(statuses.filter((s) => s === 401).length).toBe(9);
    expect(statuses.at(-1)).toBe(429);
    const blocked = await attempt(analyst.password);
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers["retry-after"])).toBeGreaterThan(0);
  });

  it("a one-time link works once", async () => {
    const { link } = await t.services.operators.create({
      email: "once@example.com",
      role: "viewer",
      projectIds: [t.project.id],
      allProjects: false,
    });
    const token = new URL(link.replace("#/welcome?", "?")).searchParams.get("token")!;
    const use = () =>
      t.app.inject({
        method: "POST",
        url: "/console/api/link",
        headers: { origin: CONSOLE_ORIGIN },
        payload: { token, password: "a long enough password" },
      });
    expect((await use()).statusCode).toBe(200);
    expect((await use()).statusCode).toBe(401);
  });

  it("users are found by id, email or a prefix; a user's timeline shows devices, evaluations and lists", async () => {
    const found = strict(UserSearchResult).parse(
      (await t.app.inject({ method: "GET", url: "/v3/users?query=u2%40example.com", headers: t.auth })).json(),
    );
    expect(found.data.map((u) => u.id)).toEqual(["u2"]);
    const prefix = strict(UserSearchResult).parse((await consoleCall(t, viewer, dev, "GET", "/v3/users?query=u")).json());
    expect(prefix.data.map((u) => u.id).sort()).toEqual(["u0", "u2", "u3"]);
    await t.app.inject({ method: "POST", url: "/v3/lists/vip/add", headers: t.auth, payload: { values: ["u2"] } });
    const detail = strict(UserDetail).parse((await consoleCall(t, viewer, dev, "GET", "/v3/users/u2")).json());
    expect(detail.evaluations.map((e) => e.id)).toEqual(
      made
        .filter((m) => m.user === "u2")
        .map((m) => m.id)
        .reverse(),
    );
    expect(detail.lists).toEqual([{ list: "vip", value: "u2", check: "user_id" }]);
    expect((await consoleCall(t, stranger, otherDev, "GET", "/v3/users/u2")).statusCode).toBe(404);
  });

  it("statistics count verdicts, actions and reasons, the same before and after the hour is rolled up", async () => {
    const read = async () =>
      strict(EvaluationStats).parse((await consoleCall(t, viewer, dev, "GET", "/v3/stats/evaluations?interval=hour")).json());
    const live = await read();
    expect(live.total).toBe(made.length);
    expect(live.verdicts.deny).toBe(made.filter((m) => m.user === "u3").length);
    expect(live.actions.find((a) => a.action === "signup")?.total).toBe(made.filter((m) => m.action === "signup").length);
    expect(live.buckets.reduce((n, b) => n + b.total, 0)).toBe(made.length);
    // Roll the current hour up as if two hours had passed: the figures stay the same.
    // (Two days on, so that today is a whole day of the daily roll-ups too.) Read 2 evaluations a page, so that the hour
    // takes many pages, ending inside a millisecond or filled by one (evaluations made in the same millisecond).
    // Between pages the event loop turns (on the embedded store a loop of queries would otherwise never let a request in).
    const { turns } = await eventLoopTurnsDuring(() =>
      rollUp(t.services.repos.evaluationStats, Date.now() + 2 * 24 * 3600 * 1000, 90, undefined, 2),
    );
    expect(turns).toBeGreaterThan(1);
    const rolled = strict(EvaluationStats).parse(
      (
        await consoleCall(
          t,
          viewer,
          dev,
          "GET",
          `/v3/stats/evaluations?interval=hour&to=${new Date(Date.now() + 3 * 3600 * 1000).toISOString()}`,
        )
      ).json(),
    );
    expect(rolled.total).toBe(live.total);
    expect(rolled.verdicts).toEqual(live.verdicts);
    expect(rolled.top_reasons).toEqual(live.top_reasons);
    // By day, from the daily roll-ups.
    const byDay = strict(EvaluationStats).parse(
      (
        await consoleCall(
          t,
          viewer,
          dev,
          "GET",
          `/v3/stats/evaluations?interval=day&to=${new Date(Date.now() + 3 * 3600 * 1000).toISOString()}`,
        )
      ).json(),
    );
    expect(byDay.total).toBe(live.total);
    expect(byDay.verdicts).toEqual(live.verdicts);
    expect(byDay.top_reasons).toEqual(live.top_reasons);
    expect(byDay.actions).toEqual(live.actions);
  });

  it("a backtest counts the verdicts a draft changes, with examples, and changes nothing", async () => {
    const before = (await t.app.inject({ method: "GET", url: "/v3/policies", headers: t.auth })).json().data.length;
    const r = await consoleCall(t, viewer, dev, "POST", "/v3/policies/backtest", {
      policy: { name: "Challenge u0", priority: 950, conditions: { check: "user_id", op: "eq", value: "u0" }, verdict: "restrict" },
    });
    expect(r.statusCode, r.body).toBe(200);
    const b = strict(BacktestResult).parse(r.json());
    const u0 = made.filter((m) => m.user === "u0").length;
    expect(b.evaluated).toBe(made.length);
    expect(b.matched).toBe(u0);
    expect(b.changed).toBe(u0);
    expect(b.transitions.every((x) => x.to === "restrict")).toBe(true);
    expect(b.transitions.reduce((n, x) => n + x.count, 0)).toBe(u0);
    expect(b.examples.every((e) => e.user === "u0" && e.draft === "restrict")).toBe(true);
    expect((await t.app.inject({ method: "GET", url: "/v3/policies", headers: t.auth })).json().data.length).toBe(before);
    // A draft with the id of a stored policy replaces it for the run: "Deny u3" moved onto u2.
    const stored = (await t.app.inject({ method: "GET", url: "/v3/policies", headers: t.auth })).json().data as {
      id: string;
      name: string;
    }[];
    const denyU3 = stored.find((p) => p.name === "Deny u3")!;
    const moved = strict(BacktestResult).parse(
      (
        await consoleCall(t, viewer, dev, "POST", "/v3/policies/backtest", {
          policy: {
            id: denyU3.id,
            name: "Deny u2",
            priority: 900,
            conditions: { check: "user_id", op: "eq", value: "u2" },
            verdict: "deny",
          },
        })
      ).json(),
    );
    const count = (user: string) => made.filter((m) => m.user === user).length;
    expect(moved.changed).toBe(count("u2") + count("u3"));
    expect(moved.transitions.every((x) => (x.from === "deny") !== (x.to === "deny"))).toBe(true);
    expect(moved.transitions.filter((x) => x.from === "deny").reduce((n, x) => n + x.count, 0)).toBe(count("u3"));
    // A draft that switches "Deny u3" off is judged without it: u3's denials become what the rest decide.
    const off = strict(BacktestResult).parse(
      (
        await consoleCall(t, viewer, dev, "POST", "/v3/policies/backtest", {
          policy: {
            id: denyU3.id,
            name: "Deny u3",
            priority: 900,
            enabled: false,
            conditions: { check: "user_id", op: "eq", value: "u3" },
            verdict: "deny",
          },
        })
      ).json(),
    );
    expect(off.matched).toBe(count("u3"));
    expect(off.changed).toBe(count("u3"));
    expect(off.transitions.every((x) => x.from === "deny" && x.to !== "deny")).toBe(true);
    expect(off.examples.length).toBe(Math.min(20, count("u3")));
    expect(off.examples.every((e) => e.user === "u3" && e.current === "deny" && e.draft !== "deny")).toBe(true);
    // `limit` stops the run, and says so.
    const few = await consoleCall(t, viewer, dev, "POST", "/v3/policies/backtest", {
      policy: { name: "x", conditions: { check: "user_id", op: "eq", value: "u0" }, verdict: "deny" },
      limit: 3,
    });
    expect(strict(BacktestResult).parse(few.json())).toMatchObject({ evaluated: 3, truncated: true });
    const bad = await t.app.inject({
      method: "POST",
      url: "/v3/policies/backtest",
      headers: t.auth,
      payload: { policy: { name: "x", conditions: { check: "nope", op: "eq", value: 1 }, verdict: "deny" } },
    });
    expect(bad.statusCode).toBe(400);
    expect(strict(ErrorBody).parse(bad.json()).error.param).toBe("policy.conditions.check");
  });

  it("a backtest reads a draft's risks from each evaluation's stored risks, names their indicators, and tests lists as they are now", async () => {
    const stored = await Promise.all(
      made.map(async (m) => {
        const r = await t.app.inject({ method: "GET", url: `/v3/evaluations/${m.id}`, headers: t.auth });
        const e = r.json() as { verdict: string; risks: { name: string; score: number; indicators: string[] }[] };
        return { ...m, verdict: e.verdict, ato: e.risks.find((x) => x.name === "ato")! };
      }),
    );
    // The highest account-takeover score among them: the draft matches those, and not the others.
    const top = Math.max(...stored.map((e) => e.ato.score));
    const matching = stored.filter((e) => e.ato.score >= top);
    expect(top).toBeGreaterThan(0);
    expect(matching.length).toBeLessThan(stored.length);
    const risky = strict(BacktestResult).parse(
      (
        await consoleCall(t, viewer, dev, "POST", "/v3/policies/backtest", {
          policy: {
            name: "Restrict takeovers",
            priority: 990,
            conditions: { check: "risk.ato.score", op: "gte", value: top },
            verdict: "restrict",
          },
          examples: 50,
        })
      ).json(),
    );
    expect(risky).toMatchObject({ evaluated: stored.length, matched: matching.length, changed: matching.length, differs_from_stored: 0 });
    expect(risky.examples.map((e) => e.evaluation).sort()).toEqual(matching.map((e) => e.id).sort());
    for (const e of risky.examples) expect(e.reasons).toEqual(matching.find((m) => m.id === e.evaluation)!.ato.indicators);

    // A list holding u2 now: the draft that tests it matches u2's evaluations, stored before the list held it.
    expect(
      (await t.app.inject({ method: "POST", url: "/v3/lists/backtest_suspects/add", headers: t.auth, payload: { values: ["u2"] } }))
        .statusCode,
    ).toBe(200);
    try {
      const listed = strict(BacktestResult).parse(
        (
          await consoleCall(t, viewer, dev, "POST", "/v3/policies/backtest", {
            policy: {
              name: "Deny suspects",
              priority: 990,
              conditions: { check: "user_id", op: "in_list", value: "backtest_suspects" },
              verdict: "deny",
            },
          })
        ).json(),
      );
      const u2 = stored.filter((e) => e.user === "u2");
      expect(u2.length).toBeGreaterThan(0);
      expect(listed).toMatchObject({ evaluated: stored.length, matched: u2.length, changed: u2.length });
      expect(listed.examples.every((e) => e.user === "u2" && e.reasons.includes("in_list:backtest_suspects"))).toBe(true);
    } finally {
      await t.app.inject({ method: "POST", url: "/v3/lists/backtest_suspects/remove", headers: t.auth, payload: { values: ["u2"] } });
    }
  });

  it("settings and keys: an owner's session changes them (audited); a secret key may read settings but not change them", async () => {
    const patch = await consoleCall(t, owner, dev, "PATCH", "/v3/settings", {
      color: "#0a7f5a",
      allowed_origins: ["https://app.example.com"],
      identity_verification: "required",
    });
    expect(patch.statusCode, patch.body).toBe(200);
    expect(patch.json()).toMatchObject({
      color: "#0a7f5a",
      allowed_origins: ["https://app.example.com"],
      identity_verification: "required",
    });
    expect((await t.app.inject({ method: "GET", url: "/v3/settings", headers: t.auth })).json().color).toBe("#0a7f5a");
    // The environment's identity verification (docs/security.md), not a label: a client call naming a user without a token is refused.
    const unsigned = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/login",
      headers: { origin: "https://app.example.com" },
      payload: { client_id: t.clientId, user: "acct_unsigned", signals: { components: {} } },
    });
    expect(unsigned.statusCode, unsigned.body).toBe(401);
    expect(strict(ErrorBody).parse(unsigned.json()).error.code).toBe("invalid_user_token");
    const back = await consoleCall(t, owner, dev, "PATCH", "/v3/settings", { identity_verification: "optional" });
    expect(back.json().identity_verification).toBe("optional");
    expect((await t.app.inject({ method: "PATCH", url: "/v3/settings", headers: t.auth, payload: { color: "#000" } })).statusCode).toBe(
      403,
    );
    const badOrigin = await consoleCall(t, owner, dev, "PATCH", "/v3/settings", { allowed_origins: ["not a url"] });
    expect(strict(ErrorBody).parse(badOrigin.json()).error.param).toBe("allowed_origins.0");
    const key = await consoleCall(t, owner, dev, "POST", "/v3/keys");
    expect(key.statusCode).toBe(201);
    const secret = key.json().secret as string;
    expect((await t.app.inject({ method: "GET", url: "/v3/evaluations", headers: { authorization: `Bearer ${secret}` } })).statusCode).toBe(
      200,
    );
    expect((await consoleCall(t, owner, dev, "POST", `/v3/keys/${key.json().id}/revoke`)).statusCode).toBe(200);
    expect((await t.app.inject({ method: "GET", url: "/v3/evaluations", headers: { authorization: `Bearer ${secret}` } })).statusCode).toBe(
      401,
    );
    expect((await consoleCall(t, analyst, dev, "POST", "/v3/keys")).statusCode).toBe(403);
    const log = strict(AuditLogPage).parse((await consoleCall(t, owner, dev, "GET", "/v3/audit-log?action=key.create")).json());
    expect(log.data[0]?.after).toMatchObject({ secret: "[redacted]" });
    expect(JSON.stringify(log)).not.toContain(secret);
  });

  it("an owner detaches a user's device and erases the user from the console, both in the audit log; an analyst may do neither", async () => {
    const client = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/login",
      payload: { client_id: t.clientId, user: "gone", signals: { components: fakeComponents("gone"), visitor_token: "tok-gone-aaaaaa" } },
    });
    expect(client.statusCode).toBe(200);
    const before = strict(UserDetail).parse((await consoleCall(t, viewer, dev, "GET", "/v3/users/gone")).json());
    const device = before.devices[0]!.id;
    expect((await consoleCall(t, analyst, dev, "POST", `/v3/devices/${device}/detach`)).statusCode).toBe(403);
    const detached = await consoleCall(t, owner, dev, "POST", `/v3/devices/${device}/detach`);
    expect(detached.statusCode, detached.body).toBe(200);
    expect(detached.json().status).toBe("detached");
    expect((await consoleCall(t, analyst, dev, "DELETE", "/v3/user/gone")).statusCode).toBe(403);
    const erased = await consoleCall(t, owner, dev, "DELETE", "/v3/user/gone");
    expect(erased.statusCode).toBe(200);
    expect((await consoleCall(t, viewer, dev, "GET", "/v3/users/gone")).statusCode).toBe(404);
    const log = strict(AuditLogPage).parse(
      (await consoleCall(t, viewer, dev, "GET", "/v3/audit-log?actor=owner%40example.com&limit=100")).json(),
    );
    expect(log.data.filter((e) => e.status === 200).map((e) => `${e.action} ${e.target?.id}`)).toEqual(
      expect.arrayContaining([`device.detach ${device}`, "user.erase gone"]),
    );
  });

  it("an analyst resolves a pending challenge by hand (once); a viewer may not", async () => {
    await t.app.inject({
      method: "POST",
      url: "/v3/policies",
      headers: t.auth,
      payload: {
        name: "Challenge c1",
        actions: ["chk"],
        priority: 990,
        conditions: { check: "user_id", op: "eq", value: "c1" },
        verdict: "challenge",
        challenge: { type: "account_takeover", channels: ["email"] },
      },
    });
    const ev = await evaluate("chk", { user: "c1", email: "c1@example.com", ip: "203.0.113.9" });
    const challenge = (await t.app.inject({ method: "GET", url: `/v3/evaluations/${ev.id}`, headers: t.auth })).json().challenge.id;
    expect((await consoleCall(t, viewer, dev, "POST", `/v3/challenges/${challenge}/override`)).statusCode).toBe(403);
    const done = await consoleCall(t, analyst, dev, "POST", `/v3/challenges/${challenge}/override`);
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().status).toBe("overridden");
    expect((await consoleCall(t, analyst, dev, "POST", `/v3/challenges/${challenge}/override`)).statusCode).toBe(409);
    const listed = await consoleCall(t, viewer, dev, "GET", "/v3/challenges?status=overridden");
    expect(listed.json().data.map((c: { id: string }) => c.id)).toContain(challenge);
  });

  it('"send a test event" queues one signed delivery of a test event to that endpoint only', async () => {
    const a = await consoleCall(t, owner, dev, "POST", "/v3/webhook-endpoints", {
      url: "http://localhost:9/a",
      events: ["device.detached"],
    });
    const b = await consoleCall(t, owner, dev, "POST", "/v3/webhook-endpoints", {
      url: "http://localhost:9/b",
      events: ["device.detached"],
    });
    expect(a.statusCode).toBe(201);
    const test = await consoleCall(t, owner, dev, "POST", `/v3/webhook-endpoints/${a.json().id}/test`, {});
    expect(test.statusCode, test.body).toBe(200);
    expect(test.json()).toMatchObject({ event: "device.detached", status: "pending" });
    const deliveries = (id: string) =>
      consoleCall(t, viewer, dev, "GET", `/v3/webhook-endpoints/${id}/deliveries`).then((r) => r.json().total);
    expect(await deliveries(a.json().id)).toBe(1);
    expect(await deliveries(b.json().id)).toBe(0);
    expect((await consoleCall(t, analyst, dev, "POST", `/v3/webhook-endpoints/${a.json().id}/test`, {})).statusCode).toBe(403);
  });
});

describe("console session cookie in production", () => {
  it("is __Host-, Secure, HttpOnly, SameSite=Strict on path /", async () => {
    const t = await startTestApp("sqlite", { NODE_ENV: "production" });
    try {
      const op = await operator(t, "prod@example.com", "viewer", [t.project.id]);
      expect(op.cookie).toMatch(/^__Host-tessera_console=[\w-]{43}$/);
      const res = await t.app.inject({
        method: "POST",
        url: "/console/api/sign-in",
        headers: { origin: CONSOLE_ORIGIN },
        payload: { email: op.email, password: op.password },
      });
      const cookie = String(res.headers["set-cookie"]);
      for (const attribute of [/; Secure/, /; HttpOnly/, /; SameSite=Strict/, /; Path=\//]) expect(cookie).toMatch(attribute);
      expect(cookie).not.toMatch(/Domain=/);
    } finally {
      await t.close();
    }
  });
});

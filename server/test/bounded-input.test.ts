// Bad input never costs more than it should (docs/security.md "Bounded input"), each attack replayed over HTTP on both
// stores with what an outsider or a viewer has, beside what an honest caller does that looks like it:
// - an email of nested comments never reaches the backtracking RFC 5322 parser; honest addresses still pass;
// - per-IP limits count an IPv6 client by its /64; IPv4 addresses count one by one, as before;
// - `metadata` is bounded on every call that takes it (50 keys, 40-character keys, 500-character strings, 8 KB);
// - a backtest runs one at a time per operator, within its time budget (partial past it); `in` lists hold 1,000 values.
// The numbers are the documented defaults, written out: the test states the promise, not the code's constants.
import { BacktestResult, Device, ErrorBody } from "@tessera/sdk/contract";
import emailAddresses from "email-addresses";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { consoleCall, type Operator, operator } from "./console-helpers.js";
import { describeStores, fakeComponents, startTestApp, type TestApp } from "./helpers.js";
import { strict } from "./strict.js";

/** Called on every condition a policy step evaluates (live or backtest): lets a test see when judging happens. */
const onCondition = vi.hoisted(() => ({ current: undefined as (() => void) | undefined }));
vi.mock("../src/policies/conditions.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../src/policies/conditions.js")>();
  return {
    ...real,
    evaluateCondition: (...args: Parameters<typeof real.evaluateCondition>) => {
      onCondition.current?.();
      return real.evaluateCondition(...args);
    },
  };
});

/** The error of a refused call: status 400, and the field it names. */
function refusedParam(r: { statusCode: number; body: string; json(): unknown }): string | undefined {
  expect(r.statusCode, r.body).toBe(400);
  return strict(ErrorBody).parse(r.json()).error.param;
}

/**
 * Metadata of exactly `bytes` bytes as JSON: keys k00, k01… with strings of at most 500 characters. Each entry
 * `"kNN":"…",` is 9 bytes besides its string, and the braces 2 less the last comma: 1 + 9n + the strings' lengths.
 */
function metadataOfSize(bytes: number): Record<string, string> {
  const n = Math.ceil((bytes - 1) / (9 + 500));
  let left = bytes - 1 - 9 * n;
  const m: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    const length = Math.min(500, left);
    m[`k${String(i).padStart(2, "0")}`] = "x".repeat(length);
    left -= length;
  }
  expect(JSON.stringify(m).length).toBe(bytes);
  return m;
}

describeStores("bounded input on %s", (kind) => {
  let t: TestApp;
  let ipSeq = 0;
  beforeAll(async () => {
    // The per-IP limit of the report that found the IPv6 hole (60 a minute); every other limit out of the way.
    t = await startTestApp(kind, {
      TRUST_PROXY: "1",
      CLIENT_RATE_LIMIT: "60",
      CLIENT_ID_RATE_LIMIT: "1000000",
      CHALLENGE_IP_RATE_LIMIT: "100000",
    });
  });
  afterAll(async () => t?.close());
  afterEach(() => vi.restoreAllMocks());

  /** A fresh documentation-range IPv4 address per call, so that the per-IP limit never counts across cases. */
  const freshIp = () => `198.51.${100 + Math.floor(++ipSeq / 250)}.${(ipSeq % 250) + 1}`;
  const clientEvaluate = (body: Record<string, unknown>, ip = freshIp()) =>
    t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/login",
      headers: { "x-forwarded-for": ip },
      payload: { client_id: t.clientId, ...body },
    });
  const serverEvaluate = (body: Record<string, unknown>) =>
    t.app.inject({ method: "POST", url: "/v3/evaluate/login", headers: t.auth, payload: { ip: "203.0.113.5", ...body } });
  const updateUser = (user: string, body: Record<string, unknown>) =>
    t.app.inject({ method: "POST", url: `/v3/user/${user}/update`, headers: t.auth, payload: body });

  describe("email addresses are checked in linear time", () => {
    /** Counts the RFC 5322 parser's runs (server/src/delivery/addresses.ts calls it through this object). */
    const parserRuns = () => vi.spyOn(emailAddresses, "parseOneAddress");

    it("an address of nested comments is a 400 naming email on every entry, and the parser never runs", async () => {
      const runs = parserRuns();
      // 300 characters of nested comments: 140-270 ms of the event loop each before, from one IP under its limit. Each
      // string new to this process (the store in it): a remembered answer would hide a parse.
      const hostile = (n: number) => `a${"(".repeat(140)}${")".repeat(140)}${kind}${n}@example.com`;
      expect(refusedParam(await clientEvaluate({ user: "em_attacker", email: hostile(1) }))).toBe("email");
      expect(refusedParam(await serverEvaluate({ user: "em_attacker", email: hostile(2) }))).toBe("email");
      expect(refusedParam(await updateUser("em_attacker", { email: hostile(3) }))).toBe("email");
      // The other shapes a backtracking parser chews on: quoted local parts, folding whitespace, runs of dots.
      for (const email of [
        `"${"a".repeat(200)}${kind}"@example.com`,
        `${kind}@example.com ${" ".repeat(100)}`,
        `${"a..".repeat(20)}${kind}@example.com`,
      ])
        expect(refusedParam(await clientEvaluate({ user: "em_attacker", email }))).toBe("email");
      expect(runs).not.toHaveBeenCalled();
    });

    it("an address longer than 254 characters is a 400 naming email, before the parser", async () => {
      const runs = parserRuns();
      const long = `${kind[0]!.repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(58)}.com`;
      expect(long).toHaveLength(255);
      expect(refusedParam(await updateUser("em_long", { email: long }))).toBe("email");
      expect(refusedParam(await serverEvaluate({ user: "em_long", email: `${kind[0]!.repeat(65)}@example.com` }))).toBe("email");
      expect(runs).not.toHaveBeenCalled();
    });

    it("honest addresses (tags, apostrophes, accents, many dots, 254 characters) are accepted and parsed", async () => {
      const runs = parserRuns();
      // One letter per store: the parser's answers are remembered in this process, and each store's run must parse.
      const k = kind[0]!;
      const honest = [
        `first.last+${kind}@mail.example.org`,
        `o'brien.${k}@example.ie`,
        `é${k}@exämple.fr`,
        `${"a.".repeat(31)}${k}@${"b.".repeat(90)}com`,
        `${k.repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(57)}.com`,
      ];
      for (const [i, email] of honest.entries()) {
        const r = await clientEvaluate({ user: `em_honest_${i}`, email });
        expect(r.statusCode, r.body).toBe(200);
      }
      expect((await updateUser("em_honest_0", { email: `first.last+other.${kind}@mail.example.org` })).statusCode).toBe(204);
      expect(runs).toHaveBeenCalled();
    });
  });

  describe("per-IP limits count an IPv6 client by its /64", () => {
    it("90 requests from 90 addresses of one /64 meet the limit of 60; another /64 still passes", async () => {
      const codes: number[] = [];
      for (let i = 0; i < 90; i++) codes.push((await clientEvaluate({}, `2001:db8:60:1::${(i + 1).toString(16)}`)).statusCode);
      expect(codes.slice(0, 60).every((c) => c === 200)).toBe(true);
      expect(codes.slice(60).every((c) => c === 429)).toBe(true);
      expect((await clientEvaluate({}, "2001:db8:60:2::1")).statusCode).toBe(200);
      // An IPv4-mapped address is the IPv4 client it carries, not an IPv6 network.
      expect((await clientEvaluate({}, "::ffff:192.0.2.60")).statusCode).toBe(200);
    });

    it("IPv4 is unchanged: each address has its own 60, its neighbour too", async () => {
      const codes: number[] = [];
      for (let i = 0; i < 61; i++) codes.push((await clientEvaluate({}, "192.0.2.61")).statusCode);
      expect(codes.filter((c) => c === 200)).toHaveLength(60);
      expect(codes.at(-1)).toBe(429);
      expect((await clientEvaluate({}, "192.0.2.62")).statusCode).toBe(200);
    });
  });

  describe("metadata is bounded on every call that takes it", () => {
    const over: [string, Record<string, unknown>, string][] = [
      ["51 keys", Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])), "metadata"],
      ["a key of 41 characters", { ["k".repeat(41)]: 1 }, `metadata.${"k".repeat(41)}`],
      ["a string of 501 characters", { note: "x".repeat(501) }, "metadata.note"],
      ["a string of 501 characters one level down", { address: { city: "x".repeat(501) } }, "metadata.address.city"],
      ["a value nested two levels", { deep: { deeper: { deepest: 1 } } }, "metadata.deep.deeper"],
      ["8,193 bytes as JSON", metadataOfSize(8193), "metadata"],
      // What was accepted before: 200 KB a call, kept 90 days.
      ["200 KB", Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`k${i}`, "x".repeat(500)])), "metadata"],
    ];
    const atBounds: [string, Record<string, unknown>][] = [
      ["50 keys", Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]))],
      ["a key of 40 characters", { ["k".repeat(40)]: "v" }],
      ["a string of 500 characters", { note: "x".repeat(500) }],
      ["8,192 bytes as JSON", metadataOfSize(8192)],
      [
        "numbers, booleans, null and one level of list or object",
        { seats: 3, trial: false, ref: null, roles: ["admin"], addr: { city: "Lyon" } },
      ],
    ];

    it.each(over)("a client evaluation with %s is a 400 naming the field", async (_why, metadata, param) => {
      expect(refusedParam(await clientEvaluate({ user: "md_client", metadata }))).toBe(param);
    });

    it.each(atBounds)("a client evaluation with %s is accepted and kept as sent", async (_why, metadata) => {
      const r = await clientEvaluate({ user: "md_client_ok", metadata });
      expect(r.statusCode, r.body).toBe(200);
      const stored = await t.app.inject({ method: "GET", url: `/v3/evaluations/${r.json().evaluation_id}`, headers: t.auth });
      expect(stored.json().metadata).toEqual(metadata);
    });

    it("a server evaluation, a user update and a device's metadata refuse the same and accept the bounds", async () => {
      const tooMany = over[0]![1];
      const fifty = atBounds[0]![1];
      expect(refusedParam(await serverEvaluate({ user: "md_server", metadata: tooMany }))).toBe("metadata");
      expect((await serverEvaluate({ user: "md_server", metadata: fifty })).statusCode).toBe(200);
      // Another user: an update merges into the stored keys, and md_server's evaluation left it fifty already.
      expect(refusedParam(await updateUser("md_update", { metadata: { note: "x".repeat(501) } }))).toBe("metadata.note");
      expect((await updateUser("md_update", { metadata: { note: "x".repeat(500) } })).statusCode).toBe(204);
      expect(refusedParam(await updateUser("md_server", { metadata: { note: "x" } }))).toBe("metadata");

      const ev = await clientEvaluate({
        user: "md_device",
        signals: { components: fakeComponents("md-device"), visitor_token: "tok-md-device-xx" },
      });
      const device = (await t.app.inject({ method: "GET", url: `/v3/evaluations/${ev.json().evaluation_id}`, headers: t.auth })).json()
        .device as string;
      const setDevice = (metadata: unknown) =>
        t.app.inject({ method: "POST", url: `/v3/devices/${device}/metadata`, headers: t.auth, payload: { metadata } });
      expect(refusedParam(await setDevice(metadataOfSize(8193)))).toBe("metadata");
      const ok = await setDevice(metadataOfSize(8192));
      expect(ok.statusCode, ok.body).toBe(200);
      expect(strict(Device).parse(ok.json()).metadata).toEqual(metadataOfSize(8192));
    });

    it("legacy metadata_fields are bounded per call, and so is the device metadata they grow", async () => {
      const ev = await clientEvaluate({
        user: "md_legacy",
        signals: { components: fakeComponents("md-legacy"), visitor_token: "tok-md-legacy-xx" },
      });
      const device = (await t.app.inject({ method: "GET", url: `/v3/evaluations/${ev.json().evaluation_id}`, headers: t.auth })).json()
        .device as string;
      const merge = (metadata_fields: unknown) =>
        t.app.inject({ method: "POST", url: `/v2/proj/device/${device}/metadata`, headers: t.auth, payload: { metadata_fields } });
      expect(refusedParam(await merge({ plan: ["x".repeat(501)] }))).toBe("metadata_fields.plan.0");
      expect(refusedParam(await merge(Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, ["v"]]))))).toBe("metadata_fields");
      // Each call within the bounds, but merged they would pass 8 KB: values de-duplicate, so new ones grow the list.
      const call = (n: number) => ({ notes: Array.from({ length: 7 }, (_, i) => `${n}-${i}-${"x".repeat(490)}`) });
      for (let n = 0; n < 2; n++) expect((await merge(call(n))).statusCode).toBe(200);
      expect(refusedParam(await merge(call(2)))).toBe("metadata_fields");
      const [stored] = (await t.app.inject({ method: "GET", url: "/v3/user/md_legacy/devices", headers: t.auth })).json() as Device[];
      expect(stored?.metadata.notes).toHaveLength(14);
    });
  });

  describe("policy conditions hold at most 1,000 values", () => {
    const policy = (value: unknown[], nested = false) => {
      const comparison = { check: "ip_country", op: "in", value };
      return { name: "Countries", enabled: false, conditions: nested ? { all: [comparison] } : comparison, verdict: "deny" };
    };
    const countries = (n: number) => Array.from({ length: n }, (_, i) => `C${i}`);
    const create = (body: unknown) => t.app.inject({ method: "POST", url: "/v3/policies", headers: t.auth, payload: body as object });

    it("an in list of 1,001 values is a 400 naming the condition, on create, on update and in a backtest", async () => {
      expect(refusedParam(await create(policy(countries(1001))))).toBe("conditions.value");
      expect(refusedParam(await create(policy(countries(1001), true)))).toBe("conditions.all.0.value");
      const made = await create(policy(["FR"]));
      expect(made.statusCode).toBe(201);
      const patched = await t.app.inject({
        method: "PATCH",
        url: `/v3/policies/${made.json().id}`,
        headers: t.auth,
        payload: { conditions: { check: "ip_country", op: "not_in", value: countries(1001) } },
      });
      expect(refusedParam(patched)).toBe("conditions.value");
      const backtest = await t.app.inject({
        method: "POST",
        url: "/v3/policies/backtest",
        headers: t.auth,
        payload: { policy: policy(countries(1001)) },
      });
      expect(refusedParam(backtest)).toBe("policy.conditions.value");
    });

    it("an in list of 1,000 values is accepted", async () => {
      const r = await create(policy(countries(1000), true));
      expect(r.statusCode, r.body).toBe(201);
      expect(r.json().conditions.all[0].value).toHaveLength(1000);
    });
  });

  describe("backtests run one at a time per operator", () => {
    let dev: string;
    let viewer: Operator;
    let analyst: Operator;
    const draft = { name: "Deny bt_u1", conditions: { check: "user_id", op: "eq", value: "bt_u1" }, verdict: "deny" };
    /** The backtests' period starts with this block's evaluations (the earlier blocks made many more). */
    let since: string;
    beforeAll(async () => {
      dev = t.project.environments.development.id;
      since = new Date().toISOString();
      viewer = await operator(t, "bt-viewer@example.com", "viewer", [t.project.id]);
      analyst = await operator(t, "bt-analyst@example.com", "analyst", [t.project.id]);
      // 150 evaluations: a small set, judged in two slices of at most 100 (console/backtest.ts).
      for (let i = 0; i < 150; i += 10) {
        const made = await Promise.all(Array.from({ length: 10 }, (_, j) => serverEvaluate({ user: `bt_u${(i + j) % 3}` })));
        expect(made.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
      }
    });

    it("a second backtest of the same operator while the first runs is a 429 saying so; another operator's runs", async () => {
      // The first run is held at its first read of the evaluations until the test lets it go: "while it runs" is a
      // fact, not a race.
      const search = t.services.repos.evaluationSearch;
      const realScan = search.scan.bind(search);
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let reached!: () => void;
      const firstReadReached = new Promise<void>((resolve) => {
        reached = resolve;
      });
      let calls = 0;
      vi.spyOn(search, "scan").mockImplementation(async (...args: Parameters<typeof search.scan>) => {
        if (++calls === 1) {
          reached();
          await released;
        }
        return realScan(...args);
      });
      const first = consoleCall(t, viewer, dev, "POST", "/v3/policies/backtest", { policy: draft });
      await firstReadReached;

      const second = await consoleCall(t, viewer, dev, "POST", "/v3/policies/backtest", { policy: draft });
      expect(second.statusCode, second.body).toBe(429);
      expect(Number(second.headers["retry-after"])).toBeGreaterThanOrEqual(1);
      expect(strict(ErrorBody).parse(second.json()).error.message).toMatch(/already|still running/i);

      const other = await consoleCall(t, analyst, dev, "POST", "/v3/policies/backtest", { policy: draft });
      expect(other.statusCode, other.body).toBe(200);
      const withKey = await t.app.inject({ method: "POST", url: "/v3/policies/backtest", headers: t.auth, payload: { policy: draft } });
      expect(withKey.statusCode, withKey.body).toBe(200);

      release();
      const done = await first;
      expect(done.statusCode, done.body).toBe(200);
      // Once answered, the operator may run the next one.
      expect((await consoleCall(t, viewer, dev, "POST", "/v3/policies/backtest", { policy: draft })).statusCode).toBe(200);
    });

    it("a backtest gives the event loop back while it judges, so that other requests run between its slices", async () => {
      // A callback that runs once per turn of the event loop while the backtest runs, and the turns in which the backtest
      // judged an evaluation: judging everything in one go (what held the loop 16 s over 200,000) is one turn.
      let turns = 0;
      let spinning = true;
      const spin = () => {
        turns++;
        if (spinning) setImmediate(spin);
      };
      setImmediate(spin);
      const judgedIn = new Set<number>();
      onCondition.current = () => judgedIn.add(turns);
      try {
        const r = await consoleCall(t, analyst, dev, "POST", "/v3/policies/backtest", { policy: draft, from: since });
        expect(r.statusCode, r.body).toBe(200);
        expect(strict(BacktestResult).parse(r.json()).evaluated).toBe(150);
      } finally {
        spinning = false;
        onCondition.current = undefined;
      }
      expect(judgedIn.size).toBeGreaterThanOrEqual(2);
    });

    it("an analyst's backtest over a small set completes within the default budget: partial false, every evaluation", async () => {
      const r = await consoleCall(t, analyst, dev, "POST", "/v3/policies/backtest", { policy: draft, from: since });
      expect(r.statusCode, r.body).toBe(200);
      const b = strict(BacktestResult).parse(r.json());
      expect(b.partial).toBe(false);
      expect(b.examined_from).toBeUndefined();
      expect(b.evaluated).toBe(150);
      expect(b.matched).toBe(50);
    });
  });
});

describeStores("backtest budget on %s", (kind) => {
  let t: TestApp;
  const EVALUATIONS = 130;
  beforeAll(async () => {
    // No time at all: a run judges one slice (100 evaluations, console/backtest.ts) and answers. Counted, not timed.
    t = await startTestApp(kind, { TRUST_PROXY: "1", BACKTEST_BUDGET_MS: "0" });
    for (let i = 0; i < EVALUATIONS; i += 10)
      await Promise.all(
        Array.from({ length: 10 }, (_, j) =>
          t.app.inject({
            method: "POST",
            url: "/v3/evaluate/login",
            headers: t.auth,
            payload: { user: `bb_u${(i + j) % 5}`, ip: "203.0.113.9" },
          }),
        ),
      );
  });
  afterAll(async () => t?.close());

  it("past its time budget a backtest answers what it examined, saying partial and how far back it got", async () => {
    const r = await t.app.inject({
      method: "POST",
      url: "/v3/policies/backtest",
      headers: t.auth,
      payload: { policy: { name: "Deny bb_u0", conditions: { check: "user_id", op: "eq", value: "bb_u0" }, verdict: "deny" } },
    });
    expect(r.statusCode, r.body).toBe(200);
    const b = strict(BacktestResult).parse(r.json());
    expect(b.partial).toBe(true);
    expect(b.evaluated).toBeGreaterThan(0);
    expect(b.evaluated).toBeLessThan(EVALUATIONS);
    expect(b.truncated).toBe(false);
    expect(Date.parse(b.examined_from ?? "")).toBeGreaterThanOrEqual(Date.parse(b.from));
  });

  it("a company of 50 people behind one /64 under normal use stays under the default per-IP limit", async () => {
    // Each person within the minute: a sign-in evaluation, and the SDK's heartbeat every 30 s (150 requests; 600 allowed).
    const codes: number[] = [];
    for (let p = 1; p <= 50; p++) {
      const ip = `2001:db8:50:1::${p.toString(16)}`;
      const token = `tok-company-${p}-xxxx`;
      const ev = await t.app.inject({
        method: "POST",
        url: "/v3/client/evaluate/login",
        headers: { "x-forwarded-for": ip },
        payload: {
          client_id: t.clientId,
          user: `colleague_${p}`,
          signals: { components: fakeComponents(`colleague-${p}`), visitor_token: token },
        },
      });
      codes.push(ev.statusCode);
      for (let beat = 0; beat < 2; beat++)
        codes.push(
          (
            await t.app.inject({
              method: "POST",
              url: "/v3/client/heartbeat",
              headers: { "x-forwarded-for": ip },
              payload: { client_id: t.clientId, visitor_token: token },
            })
          ).statusCode,
        );
    }
    expect(codes).toHaveLength(150);
    expect(codes.every((c) => c === 200)).toBe(true);
  });
});

// Policies and lists API (docs/policies.md): defaults, validation on write, a created policy changes the next verdict,
// all five verdicts reachable, list membership in conditions; on both stores.
import { ErrorBody, Evaluation } from "@tessera/sdk/contract";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeStores, startTestApp, type TestApp } from "./helpers.js";
import { strict } from "./strict.js";

describeStores("policies on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind);
  });
  afterAll(async () => t?.close());

  const evaluate = async (action: string, body: Record<string, unknown>) => {
    const r = await t.app.inject({ method: "POST", url: `/v3/evaluate/${action}`, headers: t.auth, payload: body });
    expect(r.statusCode).toBe(200);
    return strict(Evaluation).parse(r.json());
  };
  const createPolicy = (body: Record<string, unknown>) =>
    t.app.inject({ method: "POST", url: "/v3/policies", headers: t.auth, payload: body });

  it("a new environment lists the default policies", async () => {
    const r = await t.app.inject({ method: "GET", url: "/v3/policies", headers: t.auth });
    expect(r.statusCode).toBe(200);
    const names = r.json().data.map((p: { name: string }) => p.name);
    expect(names).toContain("Cap devices per account");
    expect(names).toContain("Verify unfamiliar logins");
    expect(names).toContain("Deny bots");
  });

  it("an unknown check, a wrong value type or an unknown verdict is a 400 naming the field", async () => {
    const base = { name: "x", conditions: { all: [] }, verdict: "deny" };
    const unknown = await createPolicy({ ...base, conditions: { all: [{ check: "nope", op: "eq", value: true }] } });
    expect(unknown.statusCode).toBe(400);
    expect(strict(ErrorBody).parse(unknown.json()).error.param).toBe("conditions.all.0.check");
    const wrongType = await createPolicy({ ...base, conditions: { check: "device_count", op: "gt", value: "three" } });
    expect(wrongType.statusCode).toBe(400);
    expect(strict(ErrorBody).parse(wrongType.json()).error.param).toBe("conditions.value");
    const verdict = await createPolicy({ ...base, verdict: "maybe" });
    expect(verdict.statusCode).toBe(400);
    expect(strict(ErrorBody).parse(verdict.json()).error.param).toBe("verdict");
    const noChallenge = await createPolicy({ ...base, verdict: "challenge" });
    expect(strict(ErrorBody).parse(noChallenge.json()).error.param).toBe("challenge");
  });

  it("a policy created through the API changes the next verdict; deleting it restores allow", async () => {
    expect((await evaluate("checkout", { user: "p1", ip: "81.2.69.142" })).verdict).toBe("allow");
    const created = await createPolicy({
      name: "Deny GB checkout",
      actions: ["checkout"],
      priority: 10,
      verdict: "deny",
      conditions: { check: "ip_country", op: "eq", value: "GB" },
    });
    expect(created.statusCode).toBe(201);
    const ev = await evaluate("checkout", { user: "p1", ip: "81.2.69.142" });
    expect(ev.verdict).toBe("deny");
    expect(ev.policy).toEqual({ id: created.json().id, name: "Deny GB checkout", action: { type: "deny" } });
    expect(ev.geolocation?.country_code).toBe("GB");
    await t.app.inject({ method: "DELETE", url: `/v3/policies/${created.json().id}`, headers: t.auth });
    expect((await evaluate("checkout", { user: "p1", ip: "81.2.69.142" })).verdict).toBe("allow");
  });

  it("all five verdicts are reachable, the highest priority winning", async () => {
    for (const [i, verdict] of (["deny", "challenge", "restrict", "challenge_and_restrict", "allow"] as const).entries()) {
      const challenge = verdict.startsWith("challenge") ? { type: "account_takeover", channels: ["email"] } : undefined;
      const r = await createPolicy({
        name: `v-${verdict}`,
        actions: [`act${i}`],
        priority: 100,
        verdict,
        challenge,
        conditions: { all: [] },
      });
      expect(r.statusCode).toBe(201);
      await createPolicy({ name: `lower-${verdict}`, actions: [`act${i}`], priority: 1, verdict: "deny", conditions: { all: [] } });
      expect((await evaluate(`act${i}`, { user: `v${i}`, email: `v${i}@example.com` })).verdict).toBe(verdict);
    }
  });

  it("PATCH updates a policy and disabling it stops it matching", async () => {
    const r = await createPolicy({ name: "restrict reviews", actions: ["review"], verdict: "restrict", conditions: { all: [] } });
    expect((await evaluate("review", { user: "r1" })).verdict).toBe("restrict");
    const p = await t.app.inject({ method: "PATCH", url: `/v3/policies/${r.json().id}`, headers: t.auth, payload: { enabled: false } });
    expect(p.statusCode).toBe(200);
    expect(p.json().enabled).toBe(false);
    expect((await evaluate("review", { user: "r1" })).verdict).toBe("allow");
  });

  it("lists: an IP added to a list matches in_list; removed, it no longer does", async () => {
    await createPolicy({
      name: "blocked ips",
      actions: ["transfer"],
      priority: 50,
      verdict: "deny",
      conditions: { check: "ip", op: "in_list", value: "blocked" },
    });
    const add = await t.app.inject({
      method: "POST",
      url: "/v3/lists/blocked/add",
      headers: t.auth,
      payload: { values: ["8.8.8.8"], comment: "test" },
    });
    expect(add.json()).toEqual({ added: 1, updated: 0, total: 1 });
    const ev = await evaluate("transfer", { user: "l1", ip: "8.8.8.8" });
    expect(ev.verdict).toBe("deny");
    expect(ev.reasons).toContain("in_list:blocked");
    expect(ev.checks?.in_list).toEqual(["blocked"]);
    expect((await evaluate("transfer", { user: "l1", ip: "1.1.1.1" })).verdict).toBe("allow");
    const list = await t.app.inject({ method: "GET", url: "/v3/lists/blocked", headers: t.auth });
    expect(list.json().data[0].value).toBe("8.8.8.8");
    const rm = await t.app.inject({ method: "POST", url: "/v3/lists/blocked/remove", headers: t.auth, payload: { values: ["8.8.8.8"] } });
    expect(rm.json()).toEqual({ removed: 1, total: 0 });
    expect((await evaluate("transfer", { user: "l1", ip: "8.8.8.8" })).verdict).toBe("allow");
  });

  it("default policies: a bot user agent is denied; a disposable email at signup is restricted", async () => {
    const bot = await evaluate("login", { user: "b1", ip: "81.2.69.142", user_agent: "python-requests/2.31.0" });
    expect(bot.verdict).toBe("deny");
    expect(bot.reasons).toContain("bot_user_agent");
    const human = await evaluate("login", {
      user: "b2",
      ip: "81.2.69.142",
      user_agent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
    });
    expect(human.verdict).toBe("allow");
    expect(human.checks?.bot_user_agent).toBe(false);
    const throwaway = await evaluate("signup", { user: "d1", email: "x@mailinator.com", ip: "81.2.69.142" });
    expect(throwaway.verdict).toBe("restrict");
    expect(throwaway.checks?.email_is_disposable).toBe(true);
    const normal = await evaluate("signup", { user: "d2", email: "x@gmail.com", ip: "81.2.69.142" });
    expect(normal.checks?.email_is_disposable).toBe(false);
    expect(normal.checks?.email_is_webmail).toBe(true);
  });

  it("a backend login naming no browser is not an unfamiliar browser: no challenge for a known user on a new IP", async () => {
    const first = await evaluate("login", { user: "nofp", ip: "81.2.69.142" });
    expect(first.checks?.is_new_fingerprint).toBeNull();
    const next = await evaluate("login", { user: "nofp", ip: "81.2.69.160" }); // another London address
    expect(next.checks).toMatchObject({ is_new_user: false, is_new_ip: true, is_new_fingerprint: null });
    expect(next.verdict).toBe("allow");
    expect(next.risks?.find((r) => r.name === "ato")?.indicators).not.toContain("new_fingerprint");
  });

  it("network checks: Tor, hosting and VPN are set from the shipped data and clear for a residential IP", async () => {
    const tor = await evaluate("browse", { ip: "185.220.101.7" });
    expect(tor.checks?.ip_is_tor).toBe(true);
    expect(tor.geolocation?.security.tor).toBe(true);
    const aws = await evaluate("browse", { ip: "3.5.1.1" });
    expect(aws.checks?.ip_is_hosting).toBe(true);
    expect(aws.geolocation?.as_org).toMatch(/Amazon/);
    const vpn = await evaluate("browse", { ip: "89.187.160.1" });
    expect(vpn.checks?.ip_is_vpn).toBe(true);
    const home = await evaluate("browse", { ip: "81.2.69.142" });
    expect(home.checks).toMatchObject({ ip_is_tor: false, ip_is_hosting: false, ip_is_vpn: false, ip_is_anonymous: false });
  });
});

// Test mode (docs/policies.md), on both stores: in a development environment a value on a test list forces the verdict —
// even for a headless browser that the default policies deny as a bot — and production never honours it.
import { ErrorBody, Evaluation, TEST_LISTS, type TestList } from "@tessera/sdk/contract";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeStores, fakeComponents, startTestApp, type TestApp } from "./helpers.js";
import { strict } from "./strict.js";

/** What Playwright's headless Chromium looks like: the default "Deny bots" policy refuses it. */
const HEADLESS = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/142.0.0.0 Safari/537.36";

describeStores("test mode on %s", (kind) => {
  let t: TestApp;
  let prodAuth: { authorization: string };
  beforeAll(async () => {
    t = await startTestApp(kind);
    prodAuth = { authorization: `Bearer ${t.project.environments.production.secret}` };
  });
  afterAll(async () => {
    await t?.close();
  });

  const addTo = (list: string, values: string[], auth = t.auth) =>
    t.app.inject({ method: "POST", url: `/v3/lists/${list}/add`, headers: auth, payload: { values } });

  /** A client evaluation from a headless, automated browser; answers the evaluation as the backend reads it. */
  async function headless(action: string, user: string, clientId = t.clientId, auth = t.auth): Promise<Evaluation> {
    const r = await t.app.inject({
      method: "POST",
      url: `/v3/client/evaluate/${action}`,
      headers: { "user-agent": HEADLESS },
      payload: {
        client_id: clientId,
        user,
        email: `${user}@example.com`,
        signals: { components: fakeComponents(user), visitor_token: `tok-${user}-xxxxxxxx`, automation: { webdriver: true } },
      },
    });
    expect(r.statusCode, r.body).toBe(200);
    const read = await t.app.inject({ method: "GET", url: `/v3/evaluations/${r.json().evaluation_id}`, headers: auth });
    return strict(Evaluation).parse(read.json());
  }

  it("without test mode the default policies deny a headless browser as a bot", async () => {
    const ev = await headless("login", "plain-bot");
    expect(ev.verdict).toBe("deny");
    expect(ev.policy?.name).toBe("Deny bots");
  });

  for (const [list, verdict] of Object.entries(TEST_LISTS) as [TestList, string][]) {
    it(`a user on ${list} gets ${verdict}, bot or not`, async () => {
      const user = `e2e-${list}`;
      expect((await addTo(list, [user])).statusCode).toBe(200);
      const ev = await headless("login", user);
      expect(ev.verdict).toBe(verdict);
      expect(ev.policy).toEqual({ id: "test_mode", name: `Test mode (${list} list)`, action: { type: verdict } });
      expect(ev.reasons).toEqual(["test_mode", `in_list:${list}`]);
      expect(ev.checks?.is_bot).toBe(true);
      if (verdict.startsWith("challenge")) {
        expect(ev.challenge).toMatchObject({ status: "created", type: "account_takeover" });
        expect(ev.redirect).toMatch(/\/challenge\/\?challenge=/);
      } else expect(ev.challenge).toBeUndefined();
    });
  }

  it("matches emails and IPs too, and takes the challenge type from the action", async () => {
    await addTo("test_challenge", ["tester@example.com"]);
    const byEmail = await headless("signup", "tester");
    expect(byEmail.verdict).toBe("challenge");
    expect(byEmail.challenge?.type).toBe("fake_account");
    // Every injected request comes from 127.0.0.1, like a customer's test browsers on their CI machine.
    await addTo("test_restrict", ["127.0.0.1"]);
    const byIp = await headless("access", "anyone-at-all");
    expect(byIp.verdict).toBe("restrict");
    await t.app.inject({ method: "POST", url: "/v3/lists/test_restrict/remove", headers: t.auth, payload: { values: ["127.0.0.1"] } });
  });

  it("the most restrictive list wins; removing the entry gives the policies back", async () => {
    await addTo("test_allow", ["both"]);
    await addTo("test_deny", ["both"]);
    expect((await headless("login", "both")).verdict).toBe("deny");
    await t.app.inject({ method: "POST", url: "/v3/lists/test_deny/remove", headers: t.auth, payload: { values: ["both"] } });
    expect((await headless("login", "both")).verdict).toBe("allow");
    await t.app.inject({ method: "POST", url: "/v3/lists/test_allow/remove", headers: t.auth, payload: { values: ["both"] } });
    const back = await headless("login", "both");
    expect(back.verdict).toBe("deny");
    expect(back.policy?.name).toBe("Deny bots");
  });

  it("a production environment refuses test lists and never forces a verdict", async () => {
    const refused = await addTo("test_allow", ["prod-bot"], prodAuth);
    expect(refused.statusCode).toBe(400);
    expect(strict(ErrorBody).parse(refused.json()).error.param).toBe("id");
    // Even an entry that got into the store another way changes nothing in production.
    await t.services.repos.lists.add(t.project.environments.production.id, "test_allow", ["prod-bot"]);
    await t.services.repos.projects.setAllowedOrigins(t.project.id, "production", ["https://app.example.com"]);
    const ev = await headless("login", "prod-bot", t.project.environments.production.client_id, prodAuth);
    expect(ev.verdict).toBe("deny");
    expect(ev.policy?.id).not.toBe("test_mode");
  });
});

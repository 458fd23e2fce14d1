// Test mode reaches the action a test makes the user take, on both stores: a user on test_challenge is challenged on
// the login (and sign-up, and custom actions), and the pages the user then opens (`access`) are let in — not
// challenged again as "too many devices" — as README "Test mode", docs/policies.md and the demo site say.
import { Evaluation } from "@tessera/sdk/contract";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeStores, fakeComponents, startTestApp, type TestApp } from "./helpers.js";
import { strict } from "./strict.js";

/** Playwright's headless Chromium: the default "Deny bots" policy refuses it on every action. */
const HEADLESS = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/142.0.0.0 Safari/537.36";

describeStores("test mode's reach on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  const put = async (list: string, user: string) =>
    expect(
      (await t.app.inject({ method: "POST", url: `/v3/lists/${list}/add`, headers: t.auth, payload: { values: [user] } })).statusCode,
    ).toBe(200);

  /** An evaluation from the test's headless browser, read as the backend reads it. */
  async function headless(action: string, user: string): Promise<Evaluation> {
    const r = await t.app.inject({
      method: "POST",
      url: `/v3/client/evaluate/${action}`,
      headers: { "user-agent": HEADLESS },
      payload: {
        client_id: t.clientId,
        user,
        email: `${user}@example.com`,
        signals: { components: fakeComponents(user), visitor_token: `tok-${user}-xxxxxxxx`, automation: { webdriver: true } },
      },
    });
    expect(r.statusCode, r.body).toBe(200);
    const read = await t.app.inject({ method: "GET", url: `/v3/evaluations/${r.json().evaluation_id}`, headers: t.auth });
    return strict(Evaluation).parse(read.json());
  }

  it("test_challenge: the login is challenged; the next page view is let in, not challenged as account sharing", async () => {
    await put("test_challenge", "reach-login");
    const login = await headless("login", "reach-login");
    expect(login.verdict).toBe("challenge");
    expect(login.challenge?.type).toBe("account_takeover");
    const page = await headless("access", "reach-login");
    expect(page.verdict).toBe("allow");
    expect(page.challenge).toBeUndefined();
    expect(page.redirect).toBeUndefined();
    // Still test mode's doing (the headless browser is not denied as a bot), and it says so.
    expect(page.policy).toEqual({ id: "test_mode", name: "Test mode (test_challenge list)", action: { type: "allow" } });
    expect(page.reasons).toEqual(["test_mode", "in_list:test_challenge"]);
  });

  it("test_challenge reaches sign-ups and custom actions too", async () => {
    await put("test_challenge", "reach-actions");
    expect((await headless("signup", "reach-actions")).challenge?.type).toBe("fake_account");
    expect((await headless("post_comment", "reach-actions")).verdict).toBe("challenge");
  });

  it("test_challenge_and_restrict: the page view keeps the restriction without the challenge", async () => {
    await put("test_challenge_and_restrict", "reach-both");
    expect((await headless("login", "reach-both")).verdict).toBe("challenge_and_restrict");
    const page = await headless("access", "reach-both");
    expect(page.verdict).toBe("restrict");
    expect(page.challenge).toBeUndefined();
  });

  it("look-alike: deny, restrict and allow reach page views as they are", async () => {
    for (const [list, verdict] of [
      ["test_deny", "deny"],
      ["test_restrict", "restrict"],
      ["test_allow", "allow"],
    ] as const) {
      const user = `reach-${list}`;
      await put(list, user);
      expect((await headless("access", user)).verdict, list).toBe(verdict);
    }
  });

  it("on several lists, a page view gets the most restrictive verdict for a page view", async () => {
    await put("test_challenge", "reach-several");
    await put("test_restrict", "reach-several");
    expect((await headless("login", "reach-several")).verdict).toBe("challenge");
    const page = await headless("access", "reach-several");
    expect(page.verdict).toBe("restrict");
    expect(page.policy?.name).toBe("Test mode (test_restrict list)");
  });
});

// Device identity (docs/identity.md), through the real HTTP API on both stores: the visitor token anchors the device and
// its fingerprint follows the browser's drift; without a live token only an identifying fingerprint is matched, and
// only to the named user's own device; a drift never moves another live token's fingerprint; popular fingerprints link
// no accounts; email-only sign-ups find their account by normalised email; users first seen on a login are
// provisional until the backend confirms them, and pruned after a day. Each rule with what an attacker would try.
import { Evaluation } from "@tessera/sdk/contract";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { describeStores, fakeComponents, IPHONE_UA, iphoneComponents, startTestApp, type TestApp } from "./helpers.js";
import { strict } from "./strict.js";

type Wire = Record<string, { value: unknown }>;

interface Call {
  user?: string;
  email?: string;
  components: Wire;
  token?: string;
  ip?: string;
  ua?: string;
}

describeStores("device identity on %s", (kind) => {
  let t: TestApp;
  let seq = 0;
  const id = (p: string) => `${p}-${kind}-${++seq}`;
  const token = () => `tok-${id("t")}-xxxxxxxx`;

  beforeAll(async () => {
    t = await startTestApp(kind, { TRUST_PROXY: "1", CLIENT_RATE_LIMIT: "1000000" });
    // Every action is let in: these tests are about identity, not about which policy would challenge.
    const policy = await t.app.inject({
      method: "POST",
      url: "/v3/policies",
      headers: t.auth,
      payload: { name: "Let everything in (test)", actions: [], priority: 1000, conditions: { all: [] }, verdict: "allow" },
    });
    expect(policy.statusCode, policy.body).toBe(201);
  });
  afterAll(async () => t?.close());

  async function evaluate(action: string, c: Call): Promise<Evaluation> {
    const r = await t.app.inject({
      method: "POST",
      url: `/v3/client/evaluate/${action}`,
      headers: { "x-forwarded-for": c.ip ?? "10.77.0.1", ...(c.ua ? { "user-agent": c.ua } : {}) },
      payload: {
        client_id: t.clientId,
        ...(c.user ? { user: c.user } : {}),
        ...(c.email ? { email: c.email } : {}),
        signals: { components: c.components, ...(c.token ? { visitor_token: c.token } : {}) },
      },
    });
    expect(r.statusCode, r.body).toBe(200);
    const got = await t.app.inject({ method: "GET", url: `/v3/evaluations/${r.json().evaluation_id}`, headers: t.auth });
    return strict(Evaluation).parse(got.json());
  }
  const consume = async (ev: Evaluation) =>
    expect((await t.app.inject({ method: "POST", url: `/v3/evaluations/${ev.id}/consume`, headers: t.auth })).statusCode).toBe(200);
  const fingerprintRow = (fp: string) => t.services.repos.fingerprints.findById(t.project.environments.development.id, fp);
  const userRow = (external: string) => t.services.repos.users.findByExternal(t.project.environments.development.id, external);

  it("a browser that keeps its token keeps its device and fingerprint through a drift, which then matches exactly", async () => {
    const [user, tok] = [id("u"), token()];
    const first = await evaluate("login", { user, components: fakeComponents("drifting"), token: tok });
    const drifted = fakeComponents("drifting", { screenResolution: [2560, 1440], screenFrame: [0, 0, 0, 0], timezone: "Asia/Tokyo" });
    const after = await evaluate("login", { user, components: drifted, token: tok });
    expect(after.device).toBe(first.device);
    expect(after.fingerprint?.id).toBe(first.fingerprint?.id);
    expect(after.fingerprint?.confidence).toBeLessThan(1);
    expect(after.fingerprint?.confidence).toBeGreaterThanOrEqual(0.5);
    const again = await evaluate("login", { user, components: drifted, token: tok });
    expect(again.fingerprint).toEqual({ id: first.fingerprint?.id, confidence: 1 });
  });

  it("a browser's own fingerprint is read without its stored components, which only a drift reads to compare them", async () => {
    const [user, tok] = [id("u"), token()];
    const first = await evaluate("login", { user, components: fakeComponents("head-only"), token: tok });
    const stored = await fingerprintRow(first.fingerprint?.id ?? "");
    const repo = Object.getPrototypeOf(t.services.repos.fingerprints) as typeof t.services.repos.fingerprints;
    const whole = vi.spyOn(repo, "findById");
    // Each row as read (persisting a drift then moves the row the identity holds to the new components).
    const read: unknown[] = [];
    const findOwn = repo.findOwn;
    const own = vi.spyOn(repo, "findOwn").mockImplementation(async function (this: typeof repo, ...args) {
      const row = await findOwn.apply(this, args);
      read.push({ ...row });
      return row;
    });
    try {
      const again = await evaluate("login", { user, components: fakeComponents("head-only"), token: tok });
      expect(again.fingerprint).toEqual({ id: first.fingerprint?.id, confidence: 1 });
      const drifted = fakeComponents("head-only", { screenResolution: [2560, 1440], screenFrame: [0, 0, 0, 0], timezone: "Asia/Tokyo" });
      const after = await evaluate("login", { user, components: drifted, token: tok });
      expect(after.fingerprint?.id).toBe(first.fingerprint?.id);
      expect(after.fingerprint?.confidence).toBeLessThan(1);
      // The evaluation path never read the whole row; the exact match came without components, the drift with them.
      expect(whole).not.toHaveBeenCalled();
      expect(read).toHaveLength(2);
      expect(read[0]).toMatchObject({ id: stored?.id, exact_hash: stored?.exact_hash, components: null });
      expect(read[1]).toMatchObject({ id: stored?.id, exact_hash: stored?.exact_hash, components: stored?.components });
    } finally {
      whole.mockRestore();
      own.mockRestore();
    }
  });

  it("an iPhone keeps its device and fingerprint through an iOS update with its token, and gets new ones without it", async () => {
    const [user, tok] = [id("u"), token()];
    const first = await evaluate("login", { user, components: iphoneComponents(), token: tok, ua: IPHONE_UA });
    const updated = iphoneComponents({
      fontPreferences: { default: 150, apple: 160, serif: 150, sans: 145, mono: 130, min: 9, system: 148 },
    });
    const after = await evaluate("login", { user, components: updated, token: tok, ua: IPHONE_UA });
    expect(after.device).toBe(first.device);
    expect(after.fingerprint?.id).toBe(first.fingerprint?.id);
    // Every iPhone of the model reports these components alike: without its token, nothing says it is this one
    // among strangers' phones; among the named user's own devices it is their only iPhone (recognised, not trusted).
    const cleared = await evaluate("login", { user, components: updated, token: token(), ua: IPHONE_UA });
    expect(cleared.device).toBe(first.device);
    expect(cleared.fingerprint?.id).toBe(first.fingerprint?.id);
    // Recognised by what every iPhone of the model presents: no sign of a copy of this user's browser.
    expect(cleared.checks).toMatchObject({ is_recognised_device: false, is_new_device: true });
    const stranger = await evaluate("login", { user: id("u"), components: updated, token: token(), ua: IPHONE_UA });
    expect(stranger.device).not.toBe(first.device);
    expect(stranger.fingerprint?.id).not.toBe(first.fingerprint?.id);
  });

  it("one user's second iPhone of the model, first seen on its own token, is counted as the first: nothing tells them apart", async () => {
    const user = id("u");
    const a = await evaluate("login", { user, components: iphoneComponents(), token: token(), ua: IPHONE_UA });
    await consume(a);
    const b = await evaluate("login", { user, components: iphoneComponents(), token: token(), ua: IPHONE_UA });
    await consume(b);
    // The second phone, first seen, is its user's only iPhone's twin: recognised as it (what the service cannot avoid,
    // docs/identity.md); vouched for, it is the device's token: the first phone's token stays the device's previous.
    expect(b.device).toBe(a.device);
    const cleared = await evaluate("login", { user, components: iphoneComponents(), token: token(), ua: IPHONE_UA });
    expect(cleared.device).toBe(a.device);
  });

  it("without its token, a drifted browser is the named user's own device; the user's similar second computer is not", async () => {
    const [user, comps] = [id("u"), fakeComponents("drift-and-clear")];
    const first = await evaluate("login", { user, components: comps, token: token() });
    await consume(first);
    // A browser update (canvas, WebGL parameters) and an Adobe font, then the storage cleared.
    const canvas = { winding: true, geometry: "data:image/png;base64,updated", text: "data:image/png;base64,updated-text" };
    const fonts = [...((comps.fonts?.value as string[]) ?? []), "ZWAdobeF"].sort();
    const drifted = fakeComponents("drift-and-clear", { canvas, fonts });
    const cleared = await evaluate("login", { user, components: drifted, token: token() });
    expect(cleared.device).toBe(first.device);
    expect(cleared.fingerprint?.id).toBe(first.fingerprint?.id);
    expect(cleared.fingerprint?.confidence).toBeLessThan(1);
    expect(cleared.checks).toMatchObject({ is_recognised_device: true, is_new_device: true, is_new_fingerprint: true });
    // Another account naming these components is never given the device.
    const other = await evaluate("login", { user: id("u"), components: drifted, token: token() });
    expect(other.device).not.toBe(first.device);
    // The user's second laptop of the model, set up alike but in German: another device.
    const german = fakeComponents("drift-and-clear", { languages: [["de-DE"]], dateTimeLocale: "de-DE" });
    const second = await evaluate("login", { user, components: german, token: token() });
    expect(second.device).not.toBe(first.device);
  });

  it("two phones of one model with their own tokens are two devices with two fingerprints, and link no accounts", async () => {
    const a = await evaluate("signup", { user: id("u"), components: iphoneComponents(), token: token(), ua: IPHONE_UA });
    const b = await evaluate("signup", { user: id("u"), components: iphoneComponents(), token: token(), ua: IPHONE_UA });
    expect(b.device).not.toBe(a.device);
    expect(b.fingerprint?.id).not.toBe(a.fingerprint?.id);
    expect(b.checks?.fingerprint_user_count).toBe(1);
  });

  it("a similar machine with its own token never takes another's device or fingerprint, even drifting onto its exact components", async () => {
    const a = await evaluate("login", { user: id("u"), components: fakeComponents("neighbour-a"), token: token() });
    const tokB = token();
    const userB = id("u");
    const b = await evaluate("login", { user: userB, components: fakeComponents("neighbour-b"), token: tokB });
    expect(b.device).not.toBe(a.device);
    expect(b.fingerprint?.id).not.toBe(a.fingerprint?.id);
    // B's browser now reports exactly A's components (fonts installed, same taskbar): its token keeps it B's.
    const bAsA = await evaluate("login", { user: userB, components: fakeComponents("neighbour-a"), token: tokB });
    expect(bAsA.device).toBe(b.device);
    expect(bAsA.fingerprint?.id).toBe(b.fingerprint?.id);
  });

  it("a drift never moves a fingerprint that another live token presents", async () => {
    // Two accounts' browsers with identical components (one configuration in two homes): one shared fingerprint.
    const comps = fakeComponents("twin");
    const a = await evaluate("signup", { user: id("u"), components: comps, token: token(), ip: "10.78.1.1" });
    const [userB, tokB] = [id("u"), token()];
    const b = await evaluate("signup", { user: userB, components: comps, token: tokB, ip: "10.78.2.1" });
    expect(b.fingerprint?.id).toBe(a.fingerprint?.id);
    const stored = await fingerprintRow(a.fingerprint?.id as string);
    // B drifts: it gets a fingerprint of its own; A's stays on A's components and A still matches it exactly.
    const bDrifted = await evaluate("login", {
      user: userB,
      components: fakeComponents("twin", { screenResolution: [1, 1] }),
      token: tokB,
    });
    expect(bDrifted.fingerprint?.id).not.toBe(a.fingerprint?.id);
    expect(bDrifted.device).toBe(b.device);
    expect((await fingerprintRow(a.fingerprint?.id as string))?.exact_hash).toBe(stored?.exact_hash);
  });

  it("a browser whose storage was cleared keeps its fingerprint through a later drift on its new token; another account's twin still holds it back", async () => {
    const user = id("u");
    const comps = fakeComponents("cleared-then-drifted");
    const before = await evaluate("login", { user, components: comps, token: token() });
    await consume(before);
    // Storage cleared: a page naming no one on a new token finds the fingerprint, then the user signs in there.
    const tok = token();
    const page = await evaluate("access", { components: comps, token: tok });
    expect(page.fingerprint?.id).toBe(before.fingerprint?.id);
    const signedIn = await evaluate("login", { user, components: comps, token: tok });
    expect(signedIn.device).not.toBe(before.device);
    // A browser update: the token it replaced is never presented again and holds nothing back.
    const drifted = fakeComponents("cleared-then-drifted", { screenResolution: [2560, 1440], screenFrame: [0, 0, 0, 0] });
    const after = await evaluate("login", { user, components: drifted, token: tok });
    expect(after.device).toBe(signedIn.device);
    expect(after.fingerprint?.id).toBe(before.fingerprint?.id);
    expect(after.fingerprint?.confidence).toBeLessThan(1);

    // A browser that mistyped its login once (a device of that account on its token), then lost its token and was
    // vouched for on a new one: the mistyped login's device is this browser's too, and holds nothing back.
    const [owner, first, comps2] = [id("u"), token(), fakeComponents("slipped-then-cleared")];
    await evaluate("login", { user: `${owner}x`, components: comps2, token: first });
    const signIn = await evaluate("login", { user: owner, components: comps2, token: first });
    await consume(signIn);
    const second = token();
    const back = await evaluate("login", { user: owner, components: comps2, token: second });
    expect(back.device).toBe(signIn.device);
    await consume(back);
    const updated = await evaluate("login", {
      user: owner,
      components: fakeComponents("slipped-then-cleared", { screenResolution: [2560, 1440], screenFrame: [0, 0, 0, 0] }),
      token: second,
    });
    expect(updated.device).toBe(signIn.device);
    expect(updated.fingerprint?.id).toBe(signIn.fingerprint?.id);

    // The same order with another account's browser of identical components: that one is a live browser of its own.
    const twin = fakeComponents("cleared-twin");
    const other = await evaluate("login", { user: id("u"), components: twin, token: token() });
    const [mine, tokMine] = [id("u"), token()];
    expect((await evaluate("login", { user: mine, components: twin, token: tokMine })).fingerprint?.id).toBe(other.fingerprint?.id);
    const mineDrifted = await evaluate("login", {
      user: mine,
      components: fakeComponents("cleared-twin", { screenResolution: [2560, 1440], screenFrame: [0, 0, 0, 0] }),
      token: tokMine,
    });
    expect(mineDrifted.fingerprint?.id).not.toBe(other.fingerprint?.id);
  });

  it("a browser recognised on its new token, drifting while another account's twin holds its record, takes a record of its own", async () => {
    // Two accounts' laptops of one configuration share a fingerprint; A's storage is cleared, and its pages on the new
    // token are recognised (nothing vouched for them). Docked: the twin holds the record back, so A's drifted browser
    // gets a record of its own, and its device follows it there, as a device of its own token would.
    const twin = fakeComponents("recognised-twin");
    const docked = fakeComponents("recognised-twin", { screenResolution: [2560, 1440], screenFrame: [0, 0, 0, 0] });
    const user = id("u");
    const first = await evaluate("login", { user, components: twin, token: token(), ip: "10.79.1.1" });
    await consume(first);
    const neighbourUser = id("u");
    const neighbour = await evaluate("login", { user: neighbourUser, components: twin, token: token(), ip: "10.79.2.1" });
    await consume(neighbour);
    expect(neighbour.fingerprint?.id).toBe(first.fingerprint?.id);
    const tok = token();
    const page = await evaluate("access", { user, components: twin, token: tok, ip: "10.79.1.1" });
    expect(page.device).toBe(first.device);
    const dock = await evaluate("access", { user, components: docked, token: tok, ip: "10.79.1.1" });
    expect(dock.device).toBe(first.device);
    expect(dock.fingerprint?.id).not.toBe(first.fingerprint?.id);
    // Undocked on the same token: still the browser's own record (before, the record it left, the twin's: the browser's
    // fingerprint changed at every dock), which follows it back; the twin keeps its own.
    const undock = await evaluate("access", { user, components: twin, token: tok, ip: "10.79.1.1" });
    expect(undock.device).toBe(first.device);
    expect(undock.fingerprint?.id).toBe(dock.fingerprint?.id);
    expect(undock.fingerprint?.confidence).toBeLessThan(1);
    const twinAgain = await evaluate("access", { user: neighbourUser, components: twin, ip: "10.79.2.1" });
    expect(twinAgain.fingerprint?.id).toBe(first.fingerprint?.id);
    // Docked again, then its storage cleared while docked: found by its components as the user's device (before, a new
    // device: the docked components' record was no device's).
    const redock = await evaluate("access", { user, components: docked, token: tok, ip: "10.79.1.1" });
    expect(redock.fingerprint?.id).toBe(dock.fingerprint?.id);
    const lost = await evaluate("access", { user, components: docked, token: token(), ip: "10.79.1.1" });
    expect(lost.device).toBe(first.device);
    expect(lost.fingerprint?.id).toBe(dock.fingerprint?.id);
  });

  it("without its token, an identifying browser finds the named user's own device, never another account's or an anonymous one", async () => {
    const [user, comps] = [id("u"), fakeComponents("cleared-storage")];
    const first = await evaluate("login", { user, components: comps, token: token() });
    await consume(first);
    const cleared = await evaluate("login", { user, components: comps, token: token() });
    expect(cleared.device).toBe(first.device);
    expect(cleared.fingerprint).toEqual({ id: first.fingerprint?.id, confidence: 1 });
    // An attacker who copies these components and names another account, or no account, gets a device of their own.
    const other = await evaluate("login", { user: id("u"), components: comps, token: token() });
    expect(other.device).not.toBe(first.device);
    const anonymous = await evaluate("visit", { components: comps, token: token() });
    expect(anonymous.device).not.toBe(first.device);
  });

  it("a fingerprint presented by three people on two networks is popular and links no accounts; one person's accounts on one network stay linked", async () => {
    const shared = fakeComponents("office-image");
    for (const [n, ip] of ["10.79.1.1", "10.79.2.1", "10.79.3.1"].entries()) {
      const ev = await evaluate("signup", { user: id("u"), components: shared, token: token(), ip });
      expect(ev.checks?.fingerprint_user_count, `sign-up ${n + 1}`).toBe(n < 2 ? n + 1 : 1);
    }
    const fp = (await evaluate("visit", { components: shared, token: token() })).fingerprint?.id as string;
    expect((await fingerprintRow(fp))?.popular).toBe(1);
    // A multi-accounter clearing storage between sign-ups at home: one network, the fingerprint keeps counting.
    const home = fakeComponents("multi-accounter");
    const counts: unknown[] = [];
    for (let i = 0; i < 4; i++)
      counts.push(
        (await evaluate("signup", { user: id("u"), components: home, token: token(), ip: "10.80.0.1" })).checks?.fingerprint_user_count,
      );
    expect(counts).toEqual([1, 2, 3, 4]);
  });

  // The client id is public: what makes a fingerprint popular must be people someone vouched for, or a browser would
  // make its own popular by naming accounts, and stop being followed (browser_impossible_travel, the counts per
  // fingerprint).
  it("a browser naming accounts nobody confirmed from five networks, its storage cleared each time, does not make its fingerprint popular", async () => {
    const comps = fakeComponents("combo-list");
    const known = id("u");
    await consume(await evaluate("signup", { user: known, components: fakeComponents("victim-own"), token: token(), ip: "10.81.0.1" }));
    let fp = "";
    for (const [n, user] of [id("leaked"), known, id("leaked"), id("leaked"), known].entries()) {
      const ev = await evaluate("login", { user, components: comps, ...(n % 2 ? {} : { token: token() }), ip: `10.81.${n + 1}.1` });
      fp ||= ev.fingerprint?.id as string;
      expect(ev.fingerprint?.id).toBe(fp);
    }
    expect((await fingerprintRow(fp))?.popular).toBe(0);
    // Nor do pages it opens naming no one, with a fresh token each time from three more networks: a token made for the
    // occasion is no person (an anonymous browser counts once it was kept for half a day).
    for (const n of [6, 7, 8]) await evaluate("visit", { components: comps, token: token(), ip: `10.81.${n}.1` });
    expect((await fingerprintRow(fp))?.popular).toBe(0);
    // Nor do pages naming accounts the service never met, from three more: a page's user is the browser's word, and
    // the account it creates is nobody's until a sign-up, the backend or a sign-in vouches for it.
    for (const n of [9, 10, 11]) await evaluate("visit", { user: id("named"), components: comps, token: token(), ip: `10.81.${n}.1` });
    expect((await fingerprintRow(fp))?.popular).toBe(0);
    // Three people who signed in on it, on two networks: the next browser to present it finds it popular.
    for (const ip of ["10.82.1.1", "10.82.2.1", "10.82.2.2"]) {
      await consume(await evaluate("login", { user: id("u"), components: comps, token: token(), ip }));
      expect((await fingerprintRow(fp))?.popular).toBe(0);
    }
    await evaluate("login", { user: id("u"), components: comps, token: token(), ip: "10.82.3.1" });
    expect((await fingerprintRow(fp))?.popular).toBe(1);
  });

  it("anonymous visitors' browsers count as people for popularity once they have kept their token for half a day", async () => {
    const comps = fakeComponents("kiosk-image");
    const visitors = [1, 2, 3].map((n) => ({ token: token(), ip: `10.83.${n}.1` }));
    let fp = "";
    for (const v of visitors) fp = (await evaluate("visit", { components: comps, ...v })).fingerprint?.id as string;
    await evaluate("visit", { components: comps, token: token(), ip: "10.83.4.1" });
    expect((await fingerprintRow(fp))?.popular).toBe(0);
    const later = Date.now() + 13 * 3600 * 1000;
    const clock = vi.spyOn(Date, "now").mockImplementation(() => later);
    try {
      for (const v of visitors) await evaluate("visit", { components: comps, ...v });
      await evaluate("visit", { components: comps, token: token(), ip: "10.83.5.1" });
    } finally {
      clock.mockRestore();
    }
    expect((await fingerprintRow(fp))?.popular).toBe(1);
  });

  it("a mistyped login between two drifts of one browser keeps its fingerprint: the token's devices are one browser", async () => {
    const [user, tok] = [id("u"), token()];
    const first = await evaluate("login", { user, components: fakeComponents("slip"), token: tok });
    await consume(first);
    // A wrong login id first (an account never met: a device of its own on this token), then the right one.
    await evaluate("login", { user: `${user}x`, components: fakeComponents("slip"), token: tok });
    const drifted = fakeComponents("slip", { screenResolution: [2560, 1440] });
    await evaluate("login", { user: `${user}x`, components: drifted, token: tok });
    const back = await evaluate("login", { user, components: drifted, token: tok });
    expect(back.device).toBe(first.device);
    expect(back.fingerprint?.id).toBe(first.fingerprint?.id);
  });

  it("the normal window after a private window's vouched login is its device again, beside a mistyped login's device on its token", async () => {
    const [user, tok, comps] = [id("u"), token(), fakeComponents("private-after-slip")];
    const first = await evaluate("login", { user, components: comps, token: tok });
    await consume(first);
    // A mistyped login on the normal window's token: an account never met gets a device of this token.
    await evaluate("login", { user: `${user}x`, components: comps, token: tok });
    // A private window: recognised, let in and consumed, the device takes its token (the normal one is its previous).
    const incognito = await evaluate("login", { user, components: comps, token: token() });
    expect(incognito.device).toBe(first.device);
    await consume(incognito);
    const back = await evaluate("login", { user, components: comps, token: tok });
    expect(back.device).toBe(first.device);
    expect(back.checks).toMatchObject({ is_new_device: false, is_recognised_device: false });
  });

  it("a login mistyped on the new token of a browser that cleared its storage leaves the account's own device recognisable", async () => {
    // A computer whose components identify it, and an iPhone whose components every unit of its model shares.
    for (const [comps, ua] of [
      [fakeComponents("slip-after-clear"), undefined],
      [iphoneComponents({ languages: [["nl-NL", "nl"]] }), IPHONE_UA],
    ] as const) {
      const user = id("u");
      const first = await evaluate("login", { user, components: comps, token: token(), ua });
      await consume(first);
      // Storage cleared: a new token, on which a wrong login id is tried first (an account never met gets a device of it).
      const tok = token();
      const slip = await evaluate("login", { user: `${user}x`, components: comps, token: tok, ua });
      expect(slip.device).not.toBe(first.device);
      const back = await evaluate("login", { user, components: comps, token: tok, ua });
      expect(back.device).toBe(first.device);
      // Recognised by its components, as without a token: not trusted.
      expect(back.checks).toMatchObject({ is_new_device: true });
      // Its next page on that token keeps the device's own fingerprint record, not the mistyped account's device's.
      const page = await evaluate("access", { user, components: comps, token: tok, ua });
      expect(page.device).toBe(first.device);
      expect(page.fingerprint?.id).toBe(first.fingerprint?.id);
      // The mistyped account's browser is still its own device, not the account's it resembles.
      const again = await evaluate("login", { user: `${user}x`, components: comps, token: tok, ua });
      expect(again.device).toBe(slip.device);
    }
  });

  it("email-only sign-ups find one account by normalised email (Gmail dots and +tags), counted on the browser", async () => {
    const comps = fakeComponents("email-only");
    const tok = token();
    const first = await evaluate("signup", { email: "Trial.Abuser+1@gmail.com", components: comps, token: tok });
    expect(first.user?.service_id).toMatch(/^usr_/);
    expect(first.user?.id).toBeUndefined();
    const again = await evaluate("signup", { email: "TrialAbuser+2@googlemail.com", components: comps, token: token() });
    expect(again.user?.service_id).toBe(first.user?.service_id);
    const other = await evaluate("signup", { email: "someone.else@gmail.com", components: comps, token: token() });
    expect(other.user?.service_id).not.toBe(first.user?.service_id);
    expect(other.checks?.fingerprint_user_count).toBe(2);
  });

  it("email-only sign-ups of one inbox whose domain is spelt in Unicode forms find one account", async () => {
    const comps = fakeComponents("email-idna");
    const first = await evaluate("signup", { email: "unicode.abuser@gmail.com", components: comps, token: token() });
    // Full-width letters, circled letters, a soft hyphen: the mailer delivers each to gmail.com.
    for (const email of ["unicode.abuser@ｇｍａｉｌ.com", "unicodeabuser@ⓖⓜⓐⓘⓛ.com", "unicode.abuser@gm\u00adail.com"]) {
      const again = await evaluate("signup", { email, components: comps, token: token() });
      expect(again.user?.service_id, email).toBe(first.user?.service_id);
    }
  });

  it("the browser of an email-only sign-up names the account's new id: one account; another browser naming it is another", async () => {
    const [comps, tok, user] = [fakeComponents("claim"), token(), id("acct")];
    const signup = await evaluate("signup", { email: `${user}@example.org`, components: comps, token: tok });
    const named = await evaluate("access", { user, email: `${user}@example.org`, components: comps, token: tok });
    expect(named.user).toMatchObject({ service_id: signup.user?.service_id, id: user });
    expect(named.checks?.is_new_user).toBe(false);
    const elsewhere = await evaluate("signup", { email: `${id("x")}@example.org`, components: fakeComponents("other"), token: token() });
    const stranger = await evaluate("access", {
      user: id("acct"),
      email: elsewhere.user?.email,
      components: fakeComponents("other2"),
      token: token(),
    });
    expect(stranger.user?.service_id).not.toBe(elsewhere.user?.service_id);
  });

  it("an email-only sign-up naming a customer's account by its email never brings the browser into that account", async () => {
    const [victim, email] = [id("victim"), `${id("v")}@example.org`];
    const own = await evaluate("signup", { user: victim, email, components: fakeComponents("victim"), token: token() });
    await consume(own);
    // Even with the victim's very components, an email brings back none of the account's devices.
    const copy = await evaluate("signup", { email, components: fakeComponents("victim"), token: token() });
    expect(copy.device).not.toBe(own.device);
    // The attacker signs up with the victim's email: the evaluation finds the account, the device stays out of it.
    const attack = await evaluate("signup", { email, components: fakeComponents("attacker"), token: token() });
    expect(attack.user?.id).toBe(victim);
    const devices = await t.app.inject({ method: "GET", url: `/v3/user/${victim}/devices`, headers: t.auth });
    expect((devices.json() as Array<{ id: string }>).map((d) => d.id)).not.toContain(attack.device);
  });

  it("a user first seen on a login is provisional until the backend consumes, updates or completes; only accounts count", async () => {
    const comps = fakeComponents("provisional");
    const tok = token();
    const guessed = id("guess");
    const login = await evaluate("login", { user: guessed, components: comps, token: tok });
    expect(login.checks?.is_provisional_user).toBe(true);
    expect((await userRow(guessed))?.provisional).toBe(1);
    // A sign-up on the same browser: the provisional user is not an account on it.
    const signup = await evaluate("signup", { user: id("u"), components: comps, token: tok });
    expect(signup.checks?.device_user_count).toBe(1);
    await consume(login);
    expect((await userRow(guessed))?.provisional).toBe(0);
    // Updated by the backend with its secret: confirmed too.
    const other = id("guess");
    await evaluate("login", { user: other, components: fakeComponents("p2"), token: token() });
    const upd = await t.app.inject({
      method: "POST",
      url: `/v3/user/${other}/update`,
      headers: t.auth,
      payload: { metadata: { plan: "pro" } },
    });
    expect(upd.statusCode).toBe(204);
    expect((await userRow(other))?.provisional).toBe(0);
  });

  it("logins on unknown accounts count per browser, IP and network; provisional users go after a day, confirmed ones stay", async () => {
    const comps = fakeComponents("stuffer");
    let last: Evaluation | undefined;
    const names: string[] = [];
    for (let i = 0; i < 4; i++) {
      names.push(id("stuffed"));
      last = await evaluate("login", { user: names[i], components: comps, token: `${token()}-${i}`, ip: `10.81.0.${i + 1}` });
    }
    expect(last?.checks).toMatchObject({
      fingerprint_provisional_attempts: 4,
      network_provisional_attempts: 4,
      ip_provisional_attempts: 1,
      device_provisional_attempts: 1,
    });
    const kept = id("kept");
    await consume(await evaluate("login", { user: kept, components: fakeComponents("kept"), token: token() }));
    const pruned = await t.services.privacy.prune(t.services.config.RETENTION_DAYS, Date.now() + 25 * 3600 * 1000);
    expect(pruned.provisional_users).toBeGreaterThanOrEqual(4);
    for (const n of names) expect(await userRow(n)).toBeUndefined();
    expect(await userRow(kept)).toBeDefined();
  });
});

describeStores("multi-accounting with the default policies on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, { TRUST_PROXY: "1", CLIENT_RATE_LIMIT: "1000000" });
  });
  afterAll(async () => t?.close());

  async function signup(email: string, components: Wire, token: string, ip: string, ua?: string) {
    const r = await t.app.inject({
      method: "POST",
      url: "/v3/client/evaluate/signup",
      headers: { "x-forwarded-for": ip, ...(ua ? { "user-agent": ua } : {}) },
      payload: { client_id: t.clientId, email, signals: { components, visitor_token: token } },
    });
    expect(r.statusCode, r.body).toBe(200);
    const ev = strict(Evaluation).parse(
      (await t.app.inject({ method: "GET", url: `/v3/evaluations/${r.json().evaluation_id}`, headers: t.auth })).json(),
    );
    if (ev.verdict === "allow") await t.app.inject({ method: "POST", url: `/v3/evaluations/${ev.id}/consume`, headers: t.auth });
    return ev;
  }

  it("email-only sign-ups from one browser clearing its storage are verified from the third and denied from the sixth", async () => {
    const comps = fakeComponents(`abuser-${kind}`);
    const verdicts: string[] = [];
    for (let i = 0; i < 6; i++)
      verdicts.push((await signup(`trial.${kind}.${i}@example.net`, comps, `tok-abuser-${kind}-${i}-xxxx`, "10.90.0.1")).verdict);
    expect(verdicts).toEqual(["allow", "allow", "challenge", "challenge", "challenge", "deny"]);
  });

  it("people signing up on their own phones of one model, in one city, are all let in", async () => {
    const verdicts: string[] = [];
    for (let i = 0; i < 6; i++)
      verdicts.push(
        (await signup(`neighbour.${kind}.${i}@example.net`, iphoneComponents(), `tok-phone-${kind}-${i}-xxxx`, `10.91.${i}.1`, IPHONE_UA))
          .verdict,
      );
    expect(verdicts).toEqual(["allow", "allow", "allow", "allow", "allow", "allow"]);
  });
});

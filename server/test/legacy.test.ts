// Legacy /v2/proj (docs/server-api.md): access history envelope and bounds, deprecated endpoints, identification completion.
import { AccessHistoryPage, DeviceList, ErrorBody, IdentificationCompleteResponse } from "@tessera/sdk/contract";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeStores, fakeComponents, startTestApp, type TestApp } from "./helpers.js";
import { strict } from "./strict.js";

describeStores("legacy /v2/proj on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, { WORKERS: "0" });
    // Five page views of one account from two browsers, each consumed by the backend (signed in there): the account's
    // two devices (a page view alone puts no device on an account's list). Four access records: the third view of the
    // first browser is a repeat view of its second's session, and shares its record (store/access-records.ts).
    for (let i = 0; i < 5; i++) {
      const r = await t.app.inject({
        method: "POST",
        url: "/v3/client/evaluate/access",
        payload: {
          client_id: t.clientId,
          user: "hist",
          signals: { components: fakeComponents(`h${i % 2}`), visitor_token: `tok-h${i % 2}-xxxxxxxx` },
        },
      });
      await t.app.inject({ method: "POST", url: `/v3/evaluations/${r.json().evaluation_id}/consume`, headers: t.auth });
    }
  });
  afterAll(async () => t?.close());

  const get = (url: string) => t.app.inject({ method: "GET", url, headers: t.auth });

  it("access-history pages with the exact envelope", async () => {
    const r = await get("/v2/proj/access-history?user=hist&per=2&page=2");
    expect(r.statusCode).toBe(200);
    const p = strict(AccessHistoryPage).parse(r.json());
    expect(Object.keys(r.json()).sort()).toEqual(
      ["docs", "hasNextPage", "hasPrevPage", "limit", "nextPage", "page", "pagingCounter", "prevPage", "totalDocs", "totalPages"].sort(),
    );
    expect(p).toMatchObject({
      totalDocs: 4,
      limit: 2,
      totalPages: 2,
      page: 2,
      pagingCounter: 3,
      hasPrevPage: true,
      hasNextPage: false,
      prevPage: 1,
      nextPage: null,
    });
    expect(p.docs).toHaveLength(2);
    for (const d of p.docs) {
      expect(d.id).toMatch(/^acc_/);
      expect(d.user).toBe("hist");
      expect(d.device).toMatch(/^dev_/);
      expect(d.confidence).toBe(1);
    }
    const device = p.docs[0]?.device as string;
    const byDevice = strict(AccessHistoryPage).parse((await get(`/v2/proj/access-history?device=${device}`)).json());
    expect(byDevice.docs.every((d) => d.device === device)).toBe(true);
    expect(byDevice).toMatchObject({ page: 1, hasPrevPage: false, prevPage: null, limit: 10 });
    const none = strict(AccessHistoryPage).parse((await get("/v2/proj/access-history?user=nobody")).json());
    expect(none).toMatchObject({ docs: [], totalDocs: 0, totalPages: 1, hasNextPage: false, nextPage: null });
  });

  it("access-history bounds: per 1–50, and user or device required (400 naming the field)", async () => {
    for (const [q, param] of [
      ["user=hist&per=0", "per"],
      ["user=hist&per=51", "per"],
      ["user=hist&per=abc", "per"],
      ["user=hist&page=0", "page"],
      ["per=10", "user"],
    ]) {
      const r = await get(`/v2/proj/access-history?${q}`);
      expect(r.statusCode, q).toBe(400);
      expect(strict(ErrorBody).parse(r.json()).error.param).toBe(param);
    }
    expect((await get("/v2/proj/access-history?user=hist&per=50")).statusCode).toBe(200);
    expect((await t.app.inject({ method: "GET", url: "/v2/proj/access-history?user=hist" })).statusCode).toBe(401);
  });

  it("the deprecated user devices endpoint answers devices with Deprecation and Link headers", async () => {
    const r = await get("/v2/proj/user/hist/devices");
    expect(r.statusCode).toBe(200);
    expect(strict(DeviceList).parse(r.json())).toHaveLength(2);
    expect(r.headers.deprecation).toMatch(/^@\d+$/);
    expect(r.headers.link).toBe('</v3/user/hist/devices>; rel="successor-version"');
  });

  it("identify then complete attaches the device to the account; a second complete is 409", async () => {
    const idr = await t.app.inject({
      method: "POST",
      url: "/v3/client/identify",
      payload: { client_id: t.clientId, signals: { components: fakeComponents("legacy-id"), visitor_token: "tok-legacy-xxxxxxxx" } },
    });
    const { identification_id } = idr.json();
    const r = await t.app.inject({
      method: "POST",
      url: `/v2/proj/identification/${identification_id}/complete`,
      headers: t.auth,
      payload: { account: "acct_legacy" },
    });
    expect(r.statusCode).toBe(200);
    const done = strict(IdentificationCompleteResponse).parse(r.json());
    expect(done.new_device).toBe(true);
    expect(done.access).toMatch(/^acc_/);
    expect(done.metadata_fields).toEqual({});
    const again = await t.app.inject({
      method: "POST",
      url: `/v2/proj/identification/${identification_id}/complete`,
      headers: t.auth,
      payload: { account: "acct_legacy" },
    });
    expect(again.statusCode).toBe(409);
    const devices = strict(DeviceList).parse((await get("/v3/user/acct_legacy/devices")).json());
    expect(devices.map((d) => d.id)).toEqual([done.device]);
    const history = strict(AccessHistoryPage).parse((await get("/v2/proj/access-history?user=acct_legacy")).json());
    expect(history.docs.map((d) => d.id)).toEqual([done.access]);
    expect(
      (await t.app.inject({ method: "POST", url: "/v2/proj/identification/idn_nope/complete", headers: t.auth, payload: { account: "x" } }))
        .statusCode,
    ).toBe(404);
    const bad = await t.app.inject({
      method: "POST",
      url: `/v2/proj/identification/${identification_id}/complete`,
      headers: t.auth,
      payload: {},
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.param).toBe("account");

    const md = await t.app.inject({
      method: "POST",
      url: `/v2/proj/device/${done.device}/metadata`,
      headers: t.auth,
      payload: { metadata_fields: { plan: ["pro"], seats: ["3"] } },
    });
    expect(md.statusCode).toBe(200);
    expect(md.json()).toEqual({ success: true });
    expect(md.headers.deprecation).toMatch(/^@\d+$/);
    expect(md.headers.link).toBe(`</v3/devices/${done.device}/metadata>; rel="successor-version"`);
    const [device] = strict(DeviceList).parse((await get("/v3/user/acct_legacy/devices")).json());
    expect(device?.metadata).toEqual({ plan: ["pro"], seats: ["3"] });
    const badMd = await t.app.inject({
      method: "POST",
      url: `/v2/proj/device/${done.device}/metadata`,
      headers: t.auth,
      payload: { metadata_fields: { plan: "pro" } },
    });
    expect(badMd.statusCode).toBe(400);
    expect(
      (await t.app.inject({ method: "POST", url: "/v2/proj/device/dev_nope/metadata", headers: t.auth, payload: { metadata_fields: {} } }))
        .statusCode,
    ).toBe(404);
  });
});

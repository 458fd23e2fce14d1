// The heartbeat's own limit and the SDK's fastest interval agree (contract/device.ts), on both stores: a browser
// beating every 2 s for a minute (30 beats), in two windows at once, is answered every time; beyond that it is load,
// refused with 429 and Retry-After.
import { HEARTBEAT_MIN_INTERVAL_MS, HEARTBEATS_PER_MINUTE } from "@tessera/sdk/contract";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeStores, startTestApp, type TestApp } from "./helpers.js";

describeStores("heartbeat interval on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  const beat = (visitor_token: string) =>
    t.app.inject({ method: "POST", url: "/v3/client/heartbeat", payload: { client_id: t.clientId, visitor_token } });

  it("a minute of beats every 2 s from two windows of one browser is answered every time, even sent at once", async () => {
    // 30 beats a minute per window; the sliding window counts the minute's beats however they are spread, so sending
    // them back to back is the hardest case of the same count.
    const perWindow = 60_000 / HEARTBEAT_MIN_INTERVAL_MS;
    const statuses: number[] = [];
    for (let i = 0; i < 2 * perWindow; i++) statuses.push((await beat("hb-two-windows-xxxx")).statusCode);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  });

  it("a browser beating faster than that is refused with 429 and Retry-After, other browsers are not", async () => {
    for (let i = 0; i < HEARTBEATS_PER_MINUTE; i++) expect((await beat("hb-too-fast-xxxxxx")).statusCode).toBe(200);
    const over = await beat("hb-too-fast-xxxxxx");
    expect(over.statusCode).toBe(429);
    expect(Number(over.headers["retry-after"])).toBeGreaterThan(0);
    expect(over.json().error.message).toBe("Too many heartbeats from this browser");
    expect((await beat("hb-someone-else-xx")).statusCode).toBe(200);
  });
});

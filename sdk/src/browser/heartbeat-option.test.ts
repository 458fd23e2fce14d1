// The `heartbeat` option is checked up front against the server's limit per browser (contract/device.ts): a beat
// every 2 s is accepted, anything faster rejects every verb with an ArgumentError naming the option.
import { describe, expect, it } from "vitest";
import { HEARTBEAT_MIN_INTERVAL_MS, HEARTBEATS_PER_MINUTE } from "../contract/device.js";
import { ArgumentError } from "./errors.js";
import { Tessera } from "./tessera.js";

/**
 * What a verb rejects with under this `heartbeat` option. Past the option check the verb goes on to collect the
 * browser's signals, which fail here, outside a browser, with another error than an ArgumentError.
 */
async function outcome(heartbeat: unknown): Promise<unknown> {
  const t = new Tessera({ clientId: "pk_test_x", baseUrl: "https://tessera.example.com", heartbeat } as never);
  return t.getHash().then(
    () => "resolved",
    (e: unknown) => e,
  );
}

describe("the heartbeat option", () => {
  it("the server answers one window beating at the fastest interval, and a second window", () => {
    expect(HEARTBEATS_PER_MINUTE).toBeGreaterThanOrEqual((2 * 60_000) / HEARTBEAT_MIN_INTERVAL_MS);
  });

  for (const interval of [1, 1_000, HEARTBEAT_MIN_INTERVAL_MS - 1, 600_001]) {
    it(`an interval of ${interval} ms rejects with an ArgumentError naming it`, async () => {
      const e = await outcome({ interval });
      expect(e).toBeInstanceOf(ArgumentError);
      expect(e).toMatchObject({ param: "options.heartbeat.interval" });
      expect((e as Error).message).toContain(`expected ${HEARTBEAT_MIN_INTERVAL_MS} to 600000 (ms)`);
    });
  }

  for (const heartbeat of [true, { interval: HEARTBEAT_MIN_INTERVAL_MS }, { interval: 30_000 }]) {
    it(`${JSON.stringify(heartbeat)} is accepted`, async () => {
      const e = await outcome(heartbeat);
      expect(e).toBeInstanceOf(Error);
      expect(e).not.toBeInstanceOf(ArgumentError);
    });
  }
});

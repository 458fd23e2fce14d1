// What a log line shows of a URL: the path, without query or fragment, credentials in it redacted.
import { describe, expect, it } from "vitest";
import { loggedPath } from "./log.js";

describe("loggedPath", () => {
  it("drops the query and the fragment, keeps other segments as they are", () => {
    expect(loggedPath("/v3/evaluations/ev_1?token=abc")).toBe("/v3/evaluations/ev_1");
    expect(loggedPath("/console/#/welcome?token=abc")).toBe("/console/");
  });

  it("redacts a segment the route names a token, and a secret key anywhere", () => {
    expect(loggedPath("/v3/delivery/text/chl_1/2/abc", "/v3/delivery/text/:challenge/:send/:token")).toBe(
      "/v3/delivery/text/chl_1/2/[redacted]",
    );
    expect(loggedPath("/v3/keys/sk_test_abc/revoke", "/v3/keys/:id/revoke")).toBe("/v3/keys/[redacted]/revoke");
    expect(loggedPath("/nowhere/sk_live_abc")).toBe("/nowhere/[redacted]");
  });
});

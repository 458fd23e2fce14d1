// One definition of each challenge default: the skip limit comes from the contract's default, the device limit from the
// project's setting or the policies' default; and no status is written around the transition table.
import fs from "node:fs";
import path from "node:path";
import { PolicyChallenge } from "@tessera/sdk/contract";
import { describe, expect, it } from "vitest";
import { DEFAULT_DEVICE_LIMIT, projectDeviceLimit } from "../policies/device-limit.js";
import { skipLimit } from "./limits.js";

describe("challenge limits", () => {
  it("a challenge stored without a skip limit gets the contract's default; a set one is kept", () => {
    const parsed = PolicyChallenge.parse({ type: "account_takeover" });
    expect(skipLimit({})).toBe(parsed.skip_limit);
    expect(skipLimit({ skip_limit: 0 })).toBe(0);
  });

  it("the project's device limit is its setting, else the policies' default", () => {
    expect(projectDeviceLimit({})).toBe(DEFAULT_DEVICE_LIMIT);
    expect(projectDeviceLimit({ default_device_limit: 7 })).toBe(7);
  });

  it("no file of the challenges area writes a status literal (every move goes through transitions.ts)", () => {
    const dir = import.meta.dirname;
    for (const f of fs.readdirSync(dir).filter((n) => n.endsWith(".ts") && !n.endsWith(".test.ts"))) {
      const text = fs.readFileSync(path.join(dir, f), "utf8");
      expect(text, f).not.toMatch(/status: "(created|presented|code_sent|verified|completed|failed|skipped|overridden)"/);
    }
  });
});

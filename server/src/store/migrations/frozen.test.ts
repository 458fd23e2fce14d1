// Migrations are frozen: each copies what it computes instead of importing live code (server/test/layers.test.ts
// holds them to it). These are the answers the copies gave when their migrations shipped, equal then to the live
// functions' (fingerprint/index.ts, pipeline/account-email.ts, store/policy-digest.ts). The live ones may change;
// these may not, or a store migrated later would hold other keys than one migrated then.
import { describe, expect, it } from "vitest";
import { accountEmailKey, coarseKey, exactHash, measuredComponents } from "./14-device-identity.js";
import { policyDigest } from "./25-policy-default-digest.js";

describe("migration 14's email account key", () => {
  it.each([
    [" First.Last+news@GMail.com ", "firstlast@gmail.com"],
    ["f.i.r.s.t@googlemail.com", "first@gmail.com"],
    ["a..b@gmail.com", "a..b@gmail.com"],
    ["+tag@gmail.com", "+tag@gmail.com"],
    ["Name+tag@Outlook.com", "name@outlook.com"],
    ["name+tag@hotmail.co.uk", "name@hotmail.co.uk"],
    ["name+tag@icloud.com", "name@icloud.com"],
    ["name+tag@mac.com", "name+tag@mac.com"],
    ["name-keyword@yahoo.com", "name@yahoo.com"],
    ["a-b-c@ymail.com", "a-b@ymail.com"],
    ["-x@yahoo.com", "-x@yahoo.com"],
    ["User@Yandex.ua", "user@yandex.ru"],
    ["name+tag@example.com", "name+tag@example.com"],
    ["first.last@example.org", "first.last@example.org"],
    ["no-at-sign", "no-at-sign"],
    ["@nouser.com", "@nouser.com"],
    ["a@b@gmail.com", "a@b@gmail.com"],
    ["trailing@", "trailing@"],
  ])("keys %j as %j", (email, key) => {
    expect(accountEmailKey(email)).toBe(key);
  });
});

describe("migration 14's fingerprint hashes", () => {
  it.each([
    [
      "a Chromium PC, its GPU unmasked",
      {
        platform: "Win32",
        vendor: "Google Inc.",
        hardwareConcurrency: 8,
        deviceMemory: 8,
        colorDepth: 24,
        fonts: ["Arial", "Calibri"],
        canvas: { geometry: "abc", text: "def" },
        audio: 124.04,
        webGlBasics: { renderer: "WebKit WebGL", rendererUnmasked: "ANGLE (NVIDIA GeForce RTX 3060)" },
        screenResolution: [1920, 1080],
        uaFamily: "Chrome/Windows",
      },
      "a8486622cda40bb9da5c4ec9e8a81b2f88e36bbf42ed8f68486079c8f24a4096",
      "0279fdd8b99b90ec11d787e1",
    ],
    [
      "Safari's unmeasured values left out",
      {
        platform: "MacIntel",
        vendor: "Apple Computer, Inc.",
        canvas: { geometry: "skipped", text: "skipped" },
        audio: -4,
        applePay: -1,
        dateTimeLocale: -2,
        screenFrame: [null, null],
        touchSupport: { maxTouchPoints: 0 },
      },
      "24a3ff46ae4f6c5f26af66da46b162652b0ceea420d04725a6e0cf5b337e4f49",
      "43c7d88b1945059a0c4c51bf",
    ],
    [
      "Brave's farbled values left out, an array's hole",
      {
        platform: "Linux x86_64",
        vendor: "Google Inc.",
        userAgentData: { brands: ["Brave", "Chromium"] },
        canvas: { geometry: "x", text: "y" },
        audio: 35.7,
        hardwareConcurrency: 4,
        deviceMemory: 2,
        plugins: [{ name: "p" }],
        webGlBasics: { renderer: "Mesa", rendererUnmasked: "" },
        // biome-ignore lint/suspicious/noSparseArray: a hole writes nothing, which the hash must keep doing.
        list: [1, , 3],
      },
      "02fbd2024091c9d572ddd6af2ad09655b228cbad94ca3423131cef309b9c7ec2",
      "0dbcf2fa9c62c323c417becf",
    ],
    ["no components", {}, "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a", "c9ac51d80592c85014fe20fd"],
  ])("%s", (_name, components: Record<string, unknown>, exact, coarse) => {
    expect(exactHash(components)).toBe(exact);
    expect(coarseKey(measuredComponents(components))).toBe(coarse);
  });
});

describe("migration 25's policy digest", () => {
  it("digests a rule's stored fields", () => {
    const rule = {
      name: "Deny bots",
      description: null,
      enabled: 1,
      actions: "[]",
      priority: 100,
      conditions: '{"all":[{"check":"is_bot","op":"eq","value":true}]}',
      verdict: "deny",
      challenge: null,
    };
    expect(policyDigest(rule)).toBe("10nzN4YH7loTUhKQlpr5VGxG0VW3gbB5b8zfTnfMOxU");
    expect(
      policyDigest({
        ...rule,
        name: "Challenge ATO",
        description: "A new device",
        enabled: 0,
        actions: '["login"]',
        priority: 50,
        conditions: '{"any":[]}',
        verdict: "challenge",
        challenge: '{"type":"account_takeover"}',
      }),
    ).toBe("YTNxmPkLpMuTdQjD5rttA7JP8-aI0GQzDd42r6QA-dk");
  });
});

import { describe, expect, it } from "vitest";
import { coarseKey, fingerprintComponents, similarity, UA_FAMILY } from "./index.js";

const components = {
  canvas: { value: { geometry: "g", text: "t" } },
  audio: { value: 124.04 },
  fonts: { value: ["Arial", "Courier"] },
  webGlBasics: { value: { renderer: "ANGLE" } },
  platform: { value: "Linux x86_64" },
  screenResolution: { value: [1920, 1080] },
};

describe("the server-seen browser family in fingerprints", () => {
  it("keeps a browser update on the same fingerprint family", () => {
    const a = fingerprintComponents(components, { browser: "Chrome", os: "Linux" });
    const b = fingerprintComponents(components, { browser: "Chrome", os: "Linux" });
    expect(a[UA_FAMILY]).toBe("Chrome/Linux");
    expect(similarity(a, b)).toBe(1);
    expect(coarseKey(a)).toBe(coarseKey(b));
  });

  it("makes another browser or OS with identical components another fingerprint", () => {
    const chrome = fingerprintComponents(components, { browser: "Chrome", os: "Linux" });
    const mac = fingerprintComponents(components, { browser: "Chrome", os: "Mac OS" });
    const firefox = fingerprintComponents(components, { browser: "Firefox", os: "Linux" });
    expect(similarity(chrome, mac)).toBe(0);
    expect(similarity(chrome, firefox)).toBe(0);
    expect(coarseKey(chrome)).not.toBe(coarseKey(mac));
  });

  it("adds nothing when there are no components or no user agent", () => {
    expect(fingerprintComponents({}, { browser: "Chrome", os: "Linux" })).toEqual({});
    expect(UA_FAMILY in fingerprintComponents(components, {})).toBe(false);
  });
});

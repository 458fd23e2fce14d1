// The city databases are read into memory at their first lookup, by address family: IPv4 traffic never loads the
// 68 MiB IPv6 database; lookups answer the same as when both were read at start.
import { describe, expect, it } from "vitest";
import { loadGeoData } from "./index.js";

describe("loading the shipped city databases", () => {
  it("reads neither at start, the IPv4 one at the first IPv4 lookup and the IPv6 one only at an IPv6 lookup", () => {
    const geo = loadGeoData();
    expect(geo.cityLoaded).toEqual({ v4: false, v6: false });
    // A real London address of the shipped data (the checks tests use it too).
    expect(geo.lookup("81.2.69.142").country_code).toBe("GB");
    expect(geo.cityLoaded).toEqual({ v4: true, v6: false });
    // Private addresses are never looked up: they load nothing.
    geo.lookup("fd00::1");
    expect(geo.cityLoaded.v6).toBe(false);
    expect(geo.lookup("2a01:e0a:1:2::3").country_code).toBe("FR");
    expect(geo.cityLoaded).toEqual({ v4: true, v6: true });
  });
});

// Lookups and network classification on the shipped data: carriers, precision and accuracy, the network of an address.
// Records in another database's layout come from small in-memory readers (public addresses: private ones are never
// looked up).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { GeoData, geo, readNetworkList } from "./index.js";
import { networkOf } from "./ip.js";
import { isCarrierName, NetworkList } from "./networks.js";

describe("mobile carriers", () => {
  it("the shipped list knows carriers by ASN, found by owner name or curated (Verizon Wireless is named 'Verizon Business')", () => {
    expect(geo().lookup("172.56.1.1")).toMatchObject({ asn: 21928, network: "mobile" }); // T-Mobile USA
    expect(geo().lookup("63.40.1.1")).toMatchObject({ asn: 22394, network: "mobile" }); // Verizon Wireless
    expect(geo().lookup("92.40.1.1")).toMatchObject({ asn: 206067, network: "mobile" }); // Three UK
  });

  it("residential, hosting and VPN networks are not carriers", () => {
    expect(geo().lookup("81.2.69.142").network).toBeUndefined();
    expect(geo().lookup("3.5.1.1").network).toBe("hosting");
    expect(geo().lookup("89.187.160.1").network).toBe("vpn");
  });

  it("an owner name says carrier for mobile words, not for fixed-line or car makers", () => {
    for (const yes of ["T-Mobile USA, Inc.", "Cellco Partnership DBA Verizon Wireless", "AT&T Mobility LLC", "Claro Móvil"])
      expect(isCarrierName(yes), yes).toBe(true);
    for (const no of ["Cable & Wireless Jamaica", "PSA AUTOMOBILES SA", "Comcast Cable Communications", "JAB Wireless, INC.", undefined])
      expect(isCarrierName(no), String(no)).toBe(false);
  });

  it("with an ASN database that names owners, a carrier's name marks its network mobile", () => {
    const asnDb = {
      get: (ip: string) =>
        ip === "81.2.69.9" ? { autonomous_system_number: 64500, autonomous_system_organization: "Example Mobile Ltd" } : null,
    };
    const data = new GeoData({}, asnDb, new NetworkList(), new NetworkList());
    expect(data.lookup("81.2.69.9")).toMatchObject({ asn: 64500, network: "mobile" });
  });
});

describe("precision and accuracy", () => {
  it("a city-level record has city precision and no radius of its own (DB-IP lite gives none)", () => {
    const london = geo().lookup("81.2.69.142");
    expect(london.precision).toBe("city");
    expect(london.accuracy_km).toBeUndefined();
  });

  it("a MaxMind-layout record gives its accuracy radius; a country-only record has country precision", () => {
    const city = {
      get: (ip: string) =>
        ip === "81.2.69.1"
          ? {
              city: { names: { en: "Lyon" } },
              country: { iso_code: "FR" },
              location: { latitude: 45.75, longitude: 4.85, accuracy_radius: 20 },
            }
          : { country: { iso_code: "FR" }, location: { latitude: 46, longitude: 2, accuracy_radius: 500 } },
    };
    const data = new GeoData({ v4: city }, undefined, new NetworkList(), new NetworkList());
    expect(data.lookup("81.2.69.1")).toMatchObject({ city: "Lyon", precision: "city", accuracy_km: 20 });
    expect(data.lookup("81.2.69.2")).toMatchObject({ precision: "country", accuracy_km: 500 });
  });
});

describe("the network of an address", () => {
  it("is the /24 for IPv4 (mapped IPv6 too) and the /48 for IPv6", () => {
    expect(networkOf("81.2.69.142")).toBe("81.2.69.0/24");
    expect(networkOf("::ffff:81.2.69.7")).toBe("81.2.69.0/24");
    expect(networkOf("2a00:1450:4007:80e::200e")).toBe("2a00:1450:4007::/48");
    expect(networkOf("2a00:1450:4007:ffff:1::1")).toBe(networkOf("2a00:1450:4007::1"));
    expect(networkOf("not an ip")).toBeUndefined();
  });
});

describe("network lists", () => {
  it("the shipped snapshot is read through gunzip; NETWORK_LIST as plain text, or gzipped when named .gz", () => {
    expect(readNetworkList()).toMatch(/^AS16509 hosting Amazon\.com/m);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tessera-networks-"));
    const text = "AS64500 vpn Example VPN\n198.51.100.0/24 hosting\n";
    fs.writeFileSync(path.join(dir, "list.txt"), text);
    fs.writeFileSync(path.join(dir, "list.txt.gz"), gzipSync(text));
    expect(readNetworkList(path.join(dir, "list.txt"))).toBe(text);
    expect(readNetworkList(path.join(dir, "list.txt.gz"))).toBe(text);
  });
});

// Static assets (docs/challenge-app.md): the challenge app's and the console's hashed files are served by @fastify/static with
// their brotli or gzip twin written at build time (scripts/vite-precompress.ts) when the browser accepts it, cached
// for good, under the strict page headers; the uncompressed file otherwise. The real build writes the twins.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compressFile } from "../../scripts/vite-precompress.js";
import challengeApp, { CHALLENGE_APP_CSP } from "../src/routes/challenge-app.js";
import sdkAssets from "../src/routes/sdk-assets.js";
import { assetsBuiltOnce, ROOT } from "./server-process.js";

describe("challenge app assets", () => {
  let dir: string;
  let app: FastifyInstance;
  // A script of a realistic size (compressible text), under a Vite-style hashed name.
  const script = `${Array.from({ length: 400 }, (_, i) => `export const value${i} = "challenge-${i % 17}";`).join("\n")}\n`;
  const name = "index-B2xY9kQ1.js";

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "tessera-assets-"));
    fs.mkdirSync(path.join(dir, "assets"));
    fs.writeFileSync(path.join(dir, "index.html"), "<!doctype html><title>challenge</title>");
    fs.writeFileSync(path.join(dir, "assets", name), script);
    compressFile(path.join(dir, "assets", name));
    fs.writeFileSync(path.join(dir, "assets", "plain-Xa1.css"), "body{margin:0}");
    app = Fastify();
    await app.register(challengeApp, { distDir: dir });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const get = (url: string, encoding?: string) =>
    app.inject({ method: "GET", url, headers: encoding ? { "accept-encoding": encoding } : {} });

  it("answers the brotli twin to a browser accepting br, which decompresses to the same file", async () => {
    const r = await get(`/challenge/assets/${name}`, "gzip, deflate, br");
    expect(r.statusCode).toBe(200);
    expect(r.headers["content-encoding"]).toBe("br");
    expect(r.headers.vary).toMatch(/accept-encoding/i);
    expect(r.headers["content-type"]).toMatch(/javascript; charset=utf-8$/);
    expect(r.rawPayload.length).toBeLessThan(Buffer.byteLength(script) / 3);
    expect(brotliDecompressSync(r.rawPayload).toString()).toBe(script);
    expect(r.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(r.headers["content-security-policy"]).toBe(CHALLENGE_APP_CSP);
  });

  it("answers the gzip twin to a browser accepting gzip only, which decompresses to the same file", async () => {
    const r = await get(`/challenge/assets/${name}`, "gzip");
    expect(r.statusCode).toBe(200);
    expect(r.headers["content-encoding"]).toBe("gzip");
    expect(r.headers.vary).toMatch(/accept-encoding/i);
    expect(gunzipSync(r.rawPayload).toString()).toBe(script);
  });

  it("answers the file itself without accept-encoding, and for a file with no twin", async () => {
    const r = await get(`/challenge/assets/${name}`);
    expect(r.statusCode).toBe(200);
    expect(r.headers["content-encoding"]).toBeUndefined();
    expect(r.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(r.body).toBe(script);
    const css = await get("/challenge/assets/plain-Xa1.css", "br");
    expect(css.statusCode).toBe(200);
    expect(css.headers["content-encoding"]).toBeUndefined();
    expect(css.headers["content-type"]).toBe("text/css; charset=utf-8");
    expect(css.body).toBe("body{margin:0}");
  });

  it("refuses unknown, nested, dotted and twin names with the API's 404, under the page headers", async () => {
    for (const url of [
      "/challenge/assets/missing-123.js",
      "/challenge/assets/..%2Findex.html",
      "/challenge/assets/.hidden.js",
      `/challenge/assets/${name}.br`,
      "/challenge/assets/sub/x.js",
    ]) {
      const r = await get(url, "br");
      expect(r.statusCode, url).toBe(404);
      expect(r.json(), url).toEqual({ error: { status: 404, code: "not_found", message: "Asset not found" } });
      expect(r.headers["cache-control"], url).toBe("no-store");
      expect(r.headers["x-frame-options"], url).toBe("DENY");
    }
  });
});

describe("the SDK script (/sdk/v3/tessera.js)", () => {
  let dir: string;
  let app: FastifyInstance;
  const script = `(()=>{${Array.from({ length: 300 }, (_, i) => `var t${i}="tessera-${i % 13}";`).join("")}})();\n`;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "tessera-sdk-"));
    fs.writeFileSync(path.join(dir, "tessera.js"), script);
    compressFile(path.join(dir, "tessera.js"));
    app = Fastify();
    await app.register(sdkAssets, { distDir: dir });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("is served compressed as the browser accepts, embeddable from any origin, cached for an hour, revalidated by ETag", async () => {
    for (const [accept, encoding, decode] of [
      ["br, gzip", "br", brotliDecompressSync],
      ["gzip", "gzip", gunzipSync],
    ] as const) {
      const r = await app.inject({ method: "GET", url: "/sdk/v3/tessera.js", headers: { "accept-encoding": accept } });
      expect(r.statusCode).toBe(200);
      expect(r.headers["content-encoding"]).toBe(encoding);
      expect(r.headers.vary).toMatch(/accept-encoding/i);
      expect(decode(r.rawPayload).toString()).toBe(script);
      expect(r.headers["access-control-allow-origin"]).toBe("*");
      expect(r.headers["cross-origin-resource-policy"]).toBe("cross-origin");
      expect(r.headers["cache-control"]).toBe("public, max-age=3600, stale-while-revalidate=86400");
    }
    const plain = await app.inject({ method: "GET", url: "/sdk/v3/tessera.js" });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers["content-type"]).toBe("application/javascript; charset=utf-8");
    expect(plain.body).toBe(script);
    const etag = plain.headers.etag as string;
    expect(etag).toBeTruthy();
    const again = await app.inject({ method: "GET", url: "/sdk/v3/tessera.js", headers: { "if-none-match": etag } });
    expect(again.statusCode).toBe(304);
  });

  it("answers 503 without naming the folder while the bundle is not built", async () => {
    const r = await app.inject({ method: "GET", url: "/sdk/v3/tessera.js.map" });
    expect(r.statusCode).toBe(503);
    expect(r.headers["cache-control"]).toBe("no-store");
    expect(r.body).not.toContain(dir);
  });
});

describe("the production build", () => {
  it("writes a brotli and a gzip twin of every script and stylesheet of the challenge app, the console and the SDK", async () => {
    await assetsBuiltOnce();
    for (const assets of ["challenge-app/dist/assets", "console/dist/assets", "sdk/dist"].map((d) => path.join(ROOT, d))) {
      const files = fs.readdirSync(assets).filter((f) => /\.(js|css)$/.test(f));
      expect(files.length, assets).toBeGreaterThan(0);
      for (const f of files) {
        const raw = fs.readFileSync(path.join(assets, f));
        expect(brotliDecompressSync(fs.readFileSync(path.join(assets, `${f}.br`))).equals(raw), f).toBe(true);
        expect(gunzipSync(fs.readFileSync(path.join(assets, `${f}.gz`))).equals(raw), f).toBe(true);
      }
    }
  });
});

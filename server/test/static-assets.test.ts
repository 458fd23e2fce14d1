// Static assets (issue 16): the challenge app's and the console's hashed files are served by @fastify/static with
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

describe("the production build", () => {
  it("writes a brotli and a gzip twin of every script and stylesheet of the challenge app and the console", async () => {
    await assetsBuiltOnce();
    for (const app of ["challenge-app", "console"]) {
      const assets = path.join(ROOT, app, "dist", "assets");
      const files = fs.readdirSync(assets).filter((f) => /\.(js|css)$/.test(f));
      expect(files.length, app).toBeGreaterThan(0);
      for (const f of files) {
        const raw = fs.readFileSync(path.join(assets, f));
        expect(brotliDecompressSync(fs.readFileSync(path.join(assets, `${f}.br`))).equals(raw), f).toBe(true);
        expect(gunzipSync(fs.readFileSync(path.join(assets, `${f}.gz`))).equals(raw), f).toBe(true);
      }
    }
  });
});

// Serves the browser SDK's script-tag build (SPEC.md 1, 10) at /sdk/v3/tessera.js, with its source map, from
// sdk/dist. Customers embed it from any origin, so it is cacheable by browsers and CDNs for an hour (a new
// server version reaches pages within the hour; the ETag makes revalidation cheap) and embeddable cross-origin.
import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

export interface SdkAssetsOptions {
  /** Where the SDK build lives; defaults to sdk/dist of this checkout. */
  distDir?: string;
}

const DEFAULT_DIST = fileURLToPath(new URL("../../../sdk/dist", import.meta.url));

const FILES = {
  "tessera.js": "application/javascript; charset=utf-8",
  "tessera.js.map": "application/json; charset=utf-8",
} as const;

// One hour fresh, then served stale for a day while revalidating: the URL is versioned by major (/v3) only.
const CACHE_CONTROL = "public, max-age=3600, stale-while-revalidate=86400";

interface Cached {
  mtimeMs: number;
  body: Buffer;
  etag: string;
}

export default async function sdkAssets(app: FastifyInstance, opts: SdkAssetsOptions = {}): Promise<void> {
  const dist = opts.distDir ?? DEFAULT_DIST;
  const cache = new Map<string, Cached>();

  // Re-read only when the build changed, so `npm run build` is picked up without a restart.
  async function load(name: string): Promise<Cached | undefined> {
    const path = join(dist, name);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) return undefined;
    const hit = cache.get(name);
    if (hit && hit.mtimeMs === info.mtimeMs) return hit;
    const body = await readFile(path);
    const entry = { mtimeMs: info.mtimeMs, body, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"` };
    cache.set(name, entry);
    return entry;
  }

  for (const [name, type] of Object.entries(FILES)) {
    app.get(`/sdk/v3/${name}`, { schema: { hide: true } }, async (req: FastifyRequest, reply: FastifyReply) => {
      const file = await load(name);
      if (!file) {
        // The folder stays in the log: a public answer does not name paths on the server.
        req.log.error({ dist }, "SDK bundle not built");
        return reply
          .status(503)
          .header("cache-control", "no-store")
          .send({ error: { status: 503, code: "internal", message: "The SDK bundle is not built: run npm run build" } });
      }
      reply
        .header("content-type", type)
        .header("cache-control", CACHE_CONTROL)
        .header("etag", file.etag)
        .header("x-content-type-options", "nosniff")
        // Loaded by customers' pages on other origins, also with crossorigin="anonymous" (SRI) and under COEP.
        .header("access-control-allow-origin", "*")
        .header("cross-origin-resource-policy", "cross-origin");
      if (req.headers["if-none-match"] === file.etag) return reply.status(304).send();
      return reply.send(file.body);
    });
  }
}

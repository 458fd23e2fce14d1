// Serves the browser SDK's script-tag build (docs/architecture.md, docs/sdk.md) at /sdk/v3/tessera.js (and the compatibility layer's,
// /sdk/v3/rupt.js, docs/migrating.md), with its source map, from
// sdk/dist, through @fastify/static: the brotli or gzip twin written at build time (scripts/vite-precompress.ts)
// when the browser accepts it. Customers embed it from any origin, so it is cacheable by browsers and CDNs for an
// hour (a new server version reaches pages within the hour; the ETag makes revalidation cheap) and embeddable
// cross-origin.
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

export interface SdkAssetsOptions {
  /** Where the SDK build lives; defaults to sdk/dist of this checkout. */
  distDir?: string;
}

const DEFAULT_DIST = fileURLToPath(new URL("../../../sdk/dist", import.meta.url));

const FILES = {
  "tessera.js": "application/javascript; charset=utf-8",
  "tessera.js.map": "application/json; charset=utf-8",
  // The compatibility layer (docs/migrating.md): the same SDK as window.Rupt, under the hosted service's names.
  "rupt.js": "application/javascript; charset=utf-8",
  "rupt.js.map": "application/json; charset=utf-8",
} as const;

// One hour fresh, then served stale for a day while revalidating: the URL is versioned by major (/v3) only.
const CACHE_CONTROL = "public, max-age=3600, stale-while-revalidate=86400";

export default async function sdkAssets(app: FastifyInstance, opts: SdkAssetsOptions = {}): Promise<void> {
  const dist = opts.distDir ?? DEFAULT_DIST;
  await app.register(fastifyStatic, {
    root: dist,
    serve: false,
    preCompressed: true,
    index: false,
    // Ours (CACHE_CONTROL), set on the reply; `send` would otherwise answer max-age=0.
    cacheControl: false,
    // The uncompressed file keeps its declared type (a compressed one gets @fastify/static's, text/javascript).
    setHeaders: (reply, path) => {
      const type = FILES[path.slice(path.lastIndexOf("/") + 1) as keyof typeof FILES];
      if (type) reply.header("content-type", type);
    },
  });

  for (const name of Object.keys(FILES)) {
    app.get(`/sdk/v3/${name}`, { schema: { hide: true } }, async (req: FastifyRequest, reply: FastifyReply) => {
      if (
        !(await stat(join(dist, name)).then(
          (s) => s.isFile(),
          () => false,
        ))
      ) {
        // The folder stays in the log: a public answer does not name paths on the server.
        req.log.error({ dist }, "SDK bundle not built");
        return reply
          .status(503)
          .header("cache-control", "no-store")
          .send({ error: { status: 503, code: "internal", message: "The SDK bundle is not built: run npm run build" } });
      }
      return (
        reply
          .header("cache-control", CACHE_CONTROL)
          .header("x-content-type-options", "nosniff")
          // Loaded by customers' pages on other origins, also with crossorigin="anonymous" (SRI) and under COEP.
          .header("access-control-allow-origin", "*")
          .header("cross-origin-resource-policy", "cross-origin")
          .sendFile(name)
      );
    });
  }
}

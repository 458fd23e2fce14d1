// Serves the hosted challenge app (docs/architecture.md, docs/challenge-app.md) from challenge-app/dist at /challenge/, with the security headers
// of docs/challenge-app.md on every answer: a strict CSP (no inline script or style), no framing, no referrer (the page URL
// carries the challenge token), no MIME sniffing. Hashed assets are cached for good; index.html is revalidated.
import { readFile, stat } from "node:fs/promises";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply } from "fastify";

export interface ChallengeAppOptions {
  /** Where the built app lives; defaults to challenge-app/dist of this checkout. */
  distDir?: string;
}

const DEFAULT_DIST = fileURLToPath(new URL("../../../challenge-app/dist", import.meta.url));

export const CHALLENGE_APP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  // Project logos may be hosted anywhere over https, or inlined.
  "img-src 'self' data: https:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join("; ");

/** Also the console's (routes/console.ts): the same strict page policy. */
export const SECURITY_HEADERS = {
  "content-security-policy": CHALLENGE_APP_CSP,
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "cross-origin-opener-policy": "same-origin",
};

export const CONTENT_TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".webp": "image/webp",
  ".woff2": "font/woff2",
};

/** Vite's output names: one flat folder of hashed files, so anything with a slash or a leading dot is refused. */
export const ASSET_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

export function errorBody(status: number, code: string, message: string) {
  return { error: { status, code, message } };
}

/**
 * Serves the hashed files of a Vite build's assets/ folder with @fastify/static: cached for good (the name carries a
 * content hash), and the .br or .gz twin written at build time (scripts/vite-precompress.ts) when the browser accepts
 * it (`content-encoding`, `vary: accept-encoding`). Anything but a flat, known asset name is a 404 in the API's format.
 * `onMissing` answers (and returns the reply) when the whole build is missing, or returns undefined to go on.
 */
export async function registerAssets(app: FastifyInstance, prefix: string, assetsDir: string, onMissing: (reply: FastifyReply) => unknown) {
  await app.register(fastifyStatic, {
    root: assetsDir,
    serve: false,
    preCompressed: true,
    index: false,
    maxAge: "365d",
    immutable: true,
    // The uncompressed file keeps the type of its extension (a compressed one gets @fastify/static's own, the same).
    setHeaders: (res, path) => {
      const type = CONTENT_TYPES[extname(path)];
      if (type) res.header("content-type", type);
    },
  });
  app.get<{ Params: { "*": string } }>(`${prefix}*`, { schema: { hide: true } }, async (req, reply) => {
    const name = req.params["*"];
    if (await onMissing(reply)) return reply;
    if (!ASSET_NAME.test(name) || !CONTENT_TYPES[extname(name)] || !(await exists(join(assetsDir, name)))) {
      return reply
        .status(404)
        .header("cache-control", "no-store")
        .send(errorBody(404, "not_found", "Asset not found"));
    }
    return reply.sendFile(name);
  });
}

export const exists = (path: string) =>
  stat(path).then(
    (s) => s.isFile(),
    () => false,
  );

export default async function challengeApp(app: FastifyInstance, opts: ChallengeAppOptions = {}): Promise<void> {
  const dist = opts.distDir ?? DEFAULT_DIST;
  // The folder stays in the log: a public answer does not name paths on the server.
  const notBuilt = (reply: FastifyReply) => {
    reply.log.error({ dist }, "challenge app not built");
    return reply
      .status(503)
      .header("cache-control", "no-store")
      .send(errorBody(503, "internal", "The challenge app is not built: run npm run build"));
  };

  // Every answer of this plugin, errors included, carries the headers.
  app.addHook("onSend", async (_req, reply, payload) => {
    reply.headers(SECURITY_HEADERS);
    return payload;
  });

  const index = async (_req: unknown, reply: FastifyReply) => {
    const file = join(dist, "index.html");
    if (!(await exists(file))) return notBuilt(reply);
    // Re-read each time so a rebuild is served without a restart; the file is under a kilobyte.
    const html = await readFile(file);
    return reply.header("content-type", "text/html; charset=utf-8").header("cache-control", "no-cache").send(html);
  };
  const route = { schema: { hide: true } };

  // Keep the query string: it carries the challenge id and token.
  app.get("/challenge", route, async (req, reply) => {
    const query = req.url.indexOf("?");
    return reply.header("cache-control", "no-store").redirect(`/challenge/${query === -1 ? "" : req.url.slice(query)}`, 302);
  });
  app.get("/challenge/", route, index);
  app.get("/challenge/index.html", route, index);

  await registerAssets(app, "/challenge/assets/", join(dist, "assets"), async (reply) =>
    (await exists(join(dist, "index.html"))) ? undefined : notBuilt(reply),
  );

  app.get("/challenge/*", route, async (_req, reply) =>
    reply
      .status(404)
      .header("cache-control", "no-store")
      .send(errorBody(404, "not_found", "Not found")),
  );
}

// Serves the hosted challenge app (SPEC.md 1, 11) from challenge-app/dist at /challenge/, with the security headers
// of SPEC.md 11 on every answer: a strict CSP (no inline script or style), no framing, no referrer (the page URL
// carries the challenge token), no MIME sniffing. Hashed assets are cached for good; index.html is revalidated.
import { readFile, stat } from "node:fs/promises";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
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

  app.get<{ Params: { "*": string } }>("/challenge/assets/*", route, async (req, reply) => {
    const name = req.params["*"];
    const type = CONTENT_TYPES[extname(name)];
    if (!(await exists(join(dist, "index.html")))) return notBuilt(reply);
    const file = join(dist, "assets", name);
    if (!ASSET_NAME.test(name) || !type || !(await exists(file))) {
      return reply
        .status(404)
        .header("cache-control", "no-store")
        .send(errorBody(404, "not_found", "Asset not found"));
    }
    // The file name carries a content hash: it never changes, so it may be cached forever.
    return reply
      .header("content-type", type)
      .header("cache-control", "public, max-age=31536000, immutable")
      .send(await readFile(file));
  });

  app.get("/challenge/*", route, async (_req, reply) =>
    reply
      .status(404)
      .header("cache-control", "no-store")
      .send(errorBody(404, "not_found", "Not found")),
  );
}

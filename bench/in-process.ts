// The real app (embedded store with group commit, or PostgreSQL) in this process, for the bench scripts that measure without sockets
// or a load generator (inproc.ts, heap.ts): a fresh store in a temporary directory, one project, and client
// evaluations driven through app.inject, `concurrency` at a time.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildApp } from "../server/src/app.js";
import { loadConfig } from "../server/src/config.js";
import { createServices } from "../server/src/services.js";
import { BENCH_ENV, type ClientRequest } from "./traffic.js";

/** `env`: more settings, e.g. a DATABASE_URL to run on PostgreSQL instead of the embedded store. */
export async function startInProcess(name: string, env: Record<string, string> = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `tessera-${name}-`));
  const services = await createServices(
    loadConfig({ NODE_ENV: "test", DATA_DIR: dir, BOOTSTRAP_PROJECT: "0", PUBLIC_URL: "http://localhost:8080", ...BENCH_ENV, ...env }),
  );
  const app = await buildApp(services, { logger: false });
  await app.ready();
  const dev = (await services.repos.projects.create(name)).environments.development;
  const clientId = dev.client_id;
  return {
    clientId,
    secret: dev.secret,
    file: path.join(dir, "tessera.db"),
    /**
     * Sends every request, `concurrency` at a time; answers how many went, counting each answer's status, and keeping
     * each evaluation's id in `ids` when given.
     */
    async evaluate(requests: Iterable<ClientRequest>, statuses?: Map<number, number>, concurrency = 50, ids?: string[]): Promise<number> {
      const it = requests[Symbol.iterator]();
      let done = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          for (let r = it.next(); !r.done; r = it.next()) {
            const t = r.value;
            const res = await app.inject({ method: "POST", url: `/v3/client/evaluate/${t.action}`, payload: t.body, headers: t.headers });
            statuses?.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
            if (ids && res.statusCode === 200) ids.push((res.json() as { evaluation_id: string }).evaluation_id);
            done++;
          }
        }),
      );
      return done;
    },
    /** The backend consumes each evaluation (its login: the browser is then signed in, docs/identity.md); answers how many. */
    async consume(ids: readonly string[]): Promise<number> {
      let ok = 0;
      for (const id of ids) {
        const res = await app.inject({
          method: "POST",
          url: `/v3/evaluations/${id}/consume`,
          headers: { authorization: `Bearer ${dev.secret}` },
        });
        if (res.statusCode === 200) ok++;
      }
      return ok;
    },
    /** Stops the app; the store is deleted unless `keep`. */
    async close(keep = false): Promise<void> {
      await app.close();
      await services.close();
      if (!keep) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The first `n` requests of a traffic sequence. */
export function* take(traffic: { next(): ClientRequest }, n: number): Generator<ClientRequest> {
  for (let i = 0; i < n; i++) yield traffic.next();
}

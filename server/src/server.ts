// `tessera serve`: builds what it serves if missing, opens the store, bootstraps a first project, listens,
// and shuts down cleanly on SIGTERM/SIGINT.

import v8 from "node:v8";
import { buildApp } from "./app.js";
import { ensureAssetsBuilt } from "./build-assets.js";
import type { Config } from "./config.js";
import type { DemoOptions } from "./routes/demo.js";
import { createServices, type Services } from "./services.js";

/**
 * The demo site's backend needs a plain secret, and secrets are stored only hashed: each development start mints a
 * fresh key for the oldest project's development environment and revokes the one the previous start minted.
 */
async function demoCredentials(services: Services, config: Config): Promise<DemoOptions | undefined> {
  const { projects } = services.repos;
  const env = await projects.firstEnvironment("development");
  if (!env) return undefined;
  const previous = await projects.getSetting("demo_key_id");
  if (previous) await projects.revokeKey(previous);
  const key = await projects.createKey(env.projectId, "development");
  if (!key) return undefined;
  await projects.putSetting("demo_key_id", key.id);
  const host = config.host === "0.0.0.0" ? "127.0.0.1" : config.host;
  return { clientId: env.clientId, secret: key.secret, baseUrl: `http://${host.includes(":") ? `[${host}]` : host}:${config.PORT}` };
}

/**
 * V8 lets the JS heap grow to 2–4 times what is live before collecting it. Under steady load the server held 130–240
 * MiB of heap pages for ~45 MiB live, so its RSS swung by 100 MiB and could end higher after 100,000 evaluations than
 * after 50,000 with no leak at all (bench/heap.ts). Growing the heap by at most 60 % per collection kept RSS within
 * 370–390 MiB over 100,000 evaluations, for 0.5–7 % more CPU per evaluation. HEAP_GROWING_PERCENT sets it (0: V8's own
 * choice); a value given to node itself wins.
 */
function boundHeapGrowth(percent: number): void {
  const given = process.execArgv.some((a) => /--heap[-_]growing[-_]percent/.test(a));
  if (!given && percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}

export async function serve(config: Config): Promise<void> {
  boundHeapGrowth(config.HEAP_GROWING_PERCENT);
  ensureAssetsBuilt();
  const services = await createServices(config);
  if (config.BOOTSTRAP_PROJECT && (await services.repos.projects.count()) === 0) {
    const p = await services.repos.projects.create("Default project");
    const dev = p.environments.development;
    // Printed once, on the very first start, like any newly created key.
    console.log(
      `\nCreated a first project (${p.id}).\n  development client_id: ${dev.client_id}\n  development secret:    ${dev.secret}\n` +
        `  production client_id:  ${p.environments.production.client_id}\n  production secret:     ${p.environments.production.secret}\n` +
        "Secrets are shown only now. Create more with `npx tessera keys create <project> --env development`.\n",
    );
  }
  const app = await buildApp(services, { demo: config.isDev ? await demoCredentials(services, config) : undefined });
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, "shutting down");
    await app.close();
    await services.close();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
  await app.listen({ port: config.PORT, host: config.host });
  app.log.info(`Tessera ${config.NODE_ENV} on ${config.publicUrl} (store: ${services.store.dialect})`);
}

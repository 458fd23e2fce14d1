// `tessera serve`: opens the store, bootstraps a first project, listens, and shuts down cleanly on SIGTERM/SIGINT.
// (bin/tessera.mjs has made sure the bundles it serves are built from the current sources.)

import v8 from "node:v8";
import { buildApp } from "./app.js";
import { type Config, productionWarnings } from "./config.js";
import { SERVED_URL_SETTING } from "./console/operators.js";
import type { DemoOptions } from "./routes/demo.js";
import { seal, unseal } from "./secrets.js";
import { createServices, type Services } from "./services.js";
import type { CreatedProject } from "./store/projects.js";

/** The label of the demo site's key in `tessera keys list`. */
export const DEMO_KEY_LABEL = "demo site (development server)";

/**
 * The demo site's backend needs a plain secret, and secret keys are stored only hashed: the demo's key is created once
 * for the oldest project's development environment, labelled, and kept sealed under the server key (like identity
 * secrets), so that every later development start reuses it instead of adding another key.
 */
async function demoCredentials(services: Services, config: Config): Promise<DemoOptions | undefined> {
  const { projects } = services.repos;
  const env = await projects.firstEnvironment("development");
  if (!env) return undefined;
  const host = config.host === "0.0.0.0" ? "127.0.0.1" : config.host;
  const credentials = (secret: string) => ({
    clientId: env.clientId,
    secret,
    baseUrl: `http://${host.includes(":") ? `[${host}]` : host}:${config.PORT}`,
  });
  const kept = await projects.getSetting("demo_key");
  const previous = kept ? (JSON.parse(kept) as { id: string; environment: string; sealed: string }) : undefined;
  if (previous?.environment === env.id) {
    const secret = unseal(services.keys.sealing, previous.sealed);
    // Still the live key of that environment (not revoked, not sealed under another SERVER_KEY): reuse it.
    if (secret && (await projects.environmentBySecret(secret))?.id === env.id) return credentials(secret);
  }
  if (previous) await projects.revokeKey(previous.id);
  // Before keys were reused, each start minted one and kept its id here: that last one is no longer needed.
  const minted = await projects.getSetting("demo_key_id");
  if (minted) await projects.revokeKey(minted);
  const key = await projects.createKey(env.projectId, "development", DEMO_KEY_LABEL);
  if (!key) return undefined;
  await projects.putSetting(
    "demo_key",
    JSON.stringify({ id: key.id, environment: env.id, sealed: seal(services.keys.sealing, key.secret) }),
  );
  return credentials(key.secret);
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

/**
 * The development first start's project, created once: two instances starting together on an empty store both saw no
 * project and made one each. The claim of a settings key decides, in the transaction that creates the project: the
 * other instance waits for that commit (the key's unique index on PostgreSQL, the write lock on the embedded store)
 * and creates nothing. Undefined when a project exists or another instance made it.
 */
async function bootstrapProject(services: Services): Promise<CreatedProject | undefined> {
  const { projects } = services.repos;
  return services.repos.transaction(async () => {
    if ((await projects.count()) > 0 || !(await projects.claimSetting("bootstrap_project", String(Date.now())))) return undefined;
    return projects.create("Default project");
  });
}

/**
 * SIGTERM to exit, at most: within a 10-s budget (a common grace period is 30 s). A stop that waited for a stalled
 * mail server took 58 s.
 */
export const SHUTDOWN_DEADLINE_MS = 8_000;
/** Requests in flight at SIGTERM may finish within this; a code send still waiting after it is abandoned. */
const SEND_GRACE_MS = 3_000;

/** The development bootstrap's console operator. */
const DEV_OPERATOR = "admin@tessera.local";

export async function serve(config: Config): Promise<void> {
  boundHeapGrowth(config.HEAP_GROWING_PERCENT);
  const services = await createServices(config);
  // A setting whose development default loses something in production: one line each, before anything is served.
  for (const line of productionWarnings(config)) services.log.warn(line);
  if (config.BOOTSTRAP_PROJECT && (await services.repos.projects.count()) === 0) {
    const p = config.isDev ? await bootstrapProject(services) : undefined;
    if (p) {
      const dev = p.environments.development;
      // Printed once, on the very first start, like any newly created key: the development (test) key only. A live
      // key in a terminal or a log collector is a leak (docs/security.md); production keys come from the CLI.
      console.log(
        `\nCreated a first project (${p.id}).\n  development client_id: ${dev.client_id}\n  development secret:    ${dev.secret}\n` +
          `  production client_id:  ${p.environments.production.client_id}\n` +
          "The secret is shown only now. Production keys: `npx tessera keys create <project> --env production`.\n" +
          `Rename the project (its name shows on challenge pages and in code emails): \`npx tessera projects rename ${p.id} --name "My app"\`\n`,
      );
      // The console's first operator (docs/console.md), an owner of every project, in development only: production creates
      // operators with the CLI (`tessera operators create`), so that no live credential goes to a log.
      if ((await services.repos.operators.count()) === 0) {
        const { operator, link } = await services.operators.create({
          email: DEV_OPERATOR,
          role: "owner",
          projectIds: [],
          allProjects: true,
        });
        console.log(
          `Console: ${config.publicUrl}/console/\n  operator: ${operator.email} (owner of every project)\n  one-time sign-in link (24 h; choose a password there): ${link}\n` +
            "More operators: `npx tessera operators create --email … --role owner|analyst|viewer --project <id>`.\n",
        );
      }
    } else if (!config.isDev) {
      // A production server prints no secret: logs are collected and kept. The CLI creates projects and keys.
      console.log(
        "\nNo project yet: create one with `npx tessera projects create --name <name> --origins https://…` (it prints its keys once).\n",
      );
    }
  }
  const app = await buildApp(services, { demo: config.isDev ? await demoCredentials(services, config) : undefined });
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, "shutting down");
    // Whatever a mail server, a webhook receiver or the store does, the process ends within the deadline: a supervisor
    // kills it after its grace period anyway (often 30 s), and a stop that hangs delays a deployment. What is not
    // committed by then was never acknowledged.
    const deadline = setTimeout(() => {
      app.log.error({ signal, deadlineMs: SHUTDOWN_DEADLINE_MS }, "shutdown took too long: exiting now");
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS);
    deadline.unref();
    // Requests in flight get a moment to finish; a send still stuck after it is abandoned, so that its request answers.
    const abandon = setTimeout(() => services.abandonSends(), SEND_GRACE_MS);
    abandon.unref();
    // Fastify closes the connections idle when the stop begins; one whose request ends later would stay open until its
    // keep-alive timeout (5 s), and app.close() waits for it.
    const idle = setInterval(() => app.server.closeIdleConnections(), 100);
    idle.unref();
    await app.close();
    await services.close();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
  await app.listen({ port: config.PORT, host: config.host });
  // Where this server answers, for the sign-in links the CLI prints from another process (console/operators.ts).
  await services.repos.projects.putSetting(SERVED_URL_SETTING, config.publicUrl);
  app.log.info(`Tessera ${config.NODE_ENV} on ${config.publicUrl} (store: ${services.store.dialect})`);
}

// The `tessera` command line: serve, migrate, projects and keys (SPEC.md 2). Same DATA_DIR / DATABASE_URL as the server.
import { type ParseArgsConfig, parseArgs } from "node:util";
import { ENVIRONMENTS, type Environment } from "@tessera/sdk/contract";
import { ConfigError, loadConfig } from "./config.js";
import { serve } from "./server.js";
import { createServices } from "./services.js";
import { openStore } from "./store/db.js";
import { migrate } from "./store/migrations/index.js";
import type { ProjectSettings } from "./store/projects.js";

const USAGE = `Usage: tessera <command> [options]

Commands:
  serve                                  Start the server (PORT, HOST, DATA_DIR or DATABASE_URL)
  migrate                                Apply pending database migrations
  projects create --name NAME [--origins URL,URL] [--json]
                                         Create a project with development and production environments;
                                         prints each environment's client_id and secret (shown once)
  projects list [--json]                 List projects
  projects origins PROJECT_ID --env ENV --set URL,URL
                                         Set the browser origins allowed to use the environment's client id
  projects settings PROJECT_ID [--logo-url URL] [--color #RRGGBB] [--device-limit N] [--admin-email EMAIL]
                                         Branding of the challenge page, the default device limit for
                                         account sharing (3), the admin emailed about shared accounts
  keys create PROJECT_ID --env ENV [--json]
                                         Create another secret key (shown once)
  keys list PROJECT_ID [--json]          List keys (prefix and state only)
  keys revoke KEY_ID_OR_SECRET           Revoke a key; takes effect at once on running servers

Environment: see README.md (DATA_DIR, DATABASE_URL, PORT, HOST, …).`;

class UsageError extends Error {}

function envOption(v: string | undefined): Environment {
  if (!v || !(ENVIRONMENTS as readonly string[]).includes(v)) throw new UsageError(`--env must be one of ${ENVIRONMENTS.join(", ")}`);
  return v as Environment;
}

function originsOption(v: string | undefined): string[] {
  if (!v) return [];
  return v.split(",").map((o) => {
    const s = o.trim();
    if (s === "*") return s;
    let u: URL;
    try {
      u = new URL(s);
    } catch {
      throw new UsageError(`Not an origin: ${s}`);
    }
    return u.origin;
  });
}

export async function main(argv: string[]): Promise<number> {
  const [cmd, sub, ...rest] = argv;
  if (!cmd || cmd === "help" || cmd === "--help" || cmd === "-h") {
    console.log(USAGE);
    return cmd ? 0 : 1;
  }
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      return 2;
    }
    throw e;
  }

  if (cmd === "serve") {
    await serve(config);
    return -1; // keep running
  }

  if (cmd === "migrate") {
    const store = openStore({ databaseUrl: config.DATABASE_URL, sqlitePath: config.sqlitePath });
    try {
      const { applied } = await migrate(store.db);
      console.log(applied.length ? `Applied: ${applied.join(", ")}` : "Already up to date");
    } finally {
      await store.close();
    }
    return 0;
  }

  // One-off commands run no background workers (webhook delivery, retention): `serve` does.
  const services = await createServices({ ...config, WORKERS: false }, { groupCommit: false });
  try {
    type Parsed = { values: Record<string, string | boolean | undefined>; positionals: string[] };
    const args = (argv2: string[], options: NonNullable<ParseArgsConfig["options"]>): Parsed =>
      parseArgs({ args: argv2, options, allowPositionals: true, strict: true }) as Parsed;
    const { projects } = services.repos;

    if (cmd === "projects" && sub === "create") {
      const { values } = args(rest, { name: { type: "string" }, origins: { type: "string" }, json: { type: "boolean" } });
      const name = values.name as string | undefined;
      if (!name?.trim()) throw new UsageError("projects create needs --name NAME");
      const p = await projects.create(name.trim(), { allowedOrigins: originsOption(values.origins as string | undefined) });
      const out = {
        id: p.id,
        name: p.name,
        environments: {
          development: { client_id: p.environments.development.client_id, secret: p.environments.development.secret },
          production: { client_id: p.environments.production.client_id, secret: p.environments.production.secret },
        },
      };
      if (values.json) console.log(JSON.stringify(out));
      else {
        console.log(`Project ${p.name} (${p.id})`);
        for (const env of ENVIRONMENTS) {
          console.log(`  ${env}:\n    client_id: ${out.environments[env].client_id}\n    secret:    ${out.environments[env].secret}`);
        }
        console.log("Secrets are shown once and stored only as hashes: keep them now.");
      }
      return 0;
    }
    if (cmd === "projects" && sub === "list") {
      const { values } = args(rest, { json: { type: "boolean" } });
      const list = await projects.list();
      if (values.json)
        console.log(JSON.stringify(list.map((p) => ({ id: p.id, name: p.name, createdAt: new Date(p.created_at).toISOString() }))));
      else for (const p of list) console.log(`${p.id}  ${p.name}`);
      return 0;
    }
    if (cmd === "projects" && sub === "origins") {
      const { values, positionals } = args(rest, { env: { type: "string" }, set: { type: "string" } });
      const id = positionals[0];
      if (!id) throw new UsageError("projects origins needs PROJECT_ID");
      const ok = await projects.setAllowedOrigins(id, envOption(values.env as string), originsOption(values.set as string | undefined));
      if (!ok) throw new UsageError(`No project ${id}`);
      console.log("Allowed origins updated");
      return 0;
    }
    if (cmd === "projects" && sub === "settings") {
      const { values, positionals } = args(rest, {
        "logo-url": { type: "string" },
        color: { type: "string" },
        "device-limit": { type: "string" },
        "admin-email": { type: "string" },
      });
      const id = positionals[0];
      if (!id) throw new UsageError("projects settings needs PROJECT_ID");
      const patch: ProjectSettings = {};
      const logo = values["logo-url"] as string | undefined;
      if (logo !== undefined) {
        if (!/^(https:\/\/|data:image\/)/.test(logo)) throw new UsageError("--logo-url must be an https: or data:image/ URL");
        patch.logo_url = logo;
      }
      const color = values.color as string | undefined;
      if (color !== undefined) {
        if (!/^#([0-9a-f]{3}|[0-9a-f]{6})$/i.test(color)) throw new UsageError("--color must be #rgb or #rrggbb");
        patch.color = color;
      }
      const limit = values["device-limit"] as string | undefined;
      if (limit !== undefined) {
        const n = Number(limit);
        if (!Number.isInteger(n) || n < 1 || n > 100) throw new UsageError("--device-limit must be a whole number from 1 to 100");
        patch.default_device_limit = n;
      }
      const admin = values["admin-email"] as string | undefined;
      if (admin !== undefined) {
        if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(admin)) throw new UsageError("--admin-email must be an email address");
        patch.admin_email = admin;
      }
      if (!Object.keys(patch).length) throw new UsageError("projects settings needs at least one setting");
      if (!(await projects.updateSettings(id, patch))) throw new UsageError(`No project ${id}`);
      console.log("Project settings updated");
      return 0;
    }
    if (cmd === "keys" && sub === "create") {
      const { values, positionals } = args(rest, { env: { type: "string" }, json: { type: "boolean" } });
      const id = positionals[0];
      if (!id) throw new UsageError("keys create needs PROJECT_ID");
      const key = await projects.createKey(id, envOption(values.env as string));
      if (!key) throw new UsageError(`No project ${id}`);
      console.log(values.json ? JSON.stringify(key) : `Key ${key.id}\n  secret: ${key.secret}\nShown once: keep it now.`);
      return 0;
    }
    if (cmd === "keys" && sub === "list") {
      const { values, positionals } = args(rest, { json: { type: "boolean" } });
      const id = positionals[0];
      if (!id) throw new UsageError("keys list needs PROJECT_ID");
      const keys = await projects.listKeys(id);
      if (values.json) console.log(JSON.stringify(keys));
      else for (const k of keys) console.log(`${k.id}  ${k.environment}  ${k.prefix}…  ${k.revoked_at ? "revoked" : "active"}`);
      return 0;
    }
    if (cmd === "keys" && sub === "revoke") {
      const target = rest[0];
      if (!target) throw new UsageError("keys revoke needs KEY_ID or the secret");
      const ok = await projects.revokeKey(target);
      if (!ok) {
        console.error("No active key matches");
        return 1;
      }
      console.log("Key revoked");
      return 0;
    }
    throw new UsageError(`Unknown command: ${[cmd, sub].filter(Boolean).join(" ")}`);
  } catch (e) {
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      console.error(`${(e as Error).message}\n\n${USAGE}`);
      return 2;
    }
    throw e;
  } finally {
    await services.close();
  }
}

// The `tessera` command line (docs/projects.md): one table of commands, each with its usage, options and action. `--help`
// anywhere prints that command's help and does nothing else; `--version` prints the version; a mistake is one line
// naming it and where the help is. Same DATA_DIR / DATABASE_URL as the server.
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { ENVIRONMENTS, IDENTITY_VERIFICATION_MODES, type IdentityVerificationMode, ROLES, type Role } from "@tessera/sdk/contract";
import { auditSettings } from "./cli/audit.js";
import { importCommand } from "./cli/import.js";
import { type Command, envOption, json, noProject, projectId, Refused, str, UsageError, type Value, type Values } from "./cli/options.js";
import { type Config, ConfigError, loadConfig } from "./config.js";
import { recordCliChange } from "./console/audit.js";
import type { OperatorAccess, OperatorChange, OperatorScope } from "./console/operators.js";
import { smsCountries } from "./delivery/addresses.js";
import { ApiError } from "./errors.js";
import { serve } from "./server.js";
import { createServices, type Services } from "./services.js";
import { describeStartupError } from "./startup-errors.js";
import { BackupError, backupPostgres, backupSqlite } from "./store/backup.js";
import { openStore } from "./store/db.js";
import { migrate } from "./store/migrations/index.js";
import { hashSecret, type ProjectSettings } from "./store/projects.js";

function originsOption(v: Value): string[] {
  if (typeof v !== "string" || !v) return [];
  return v.split(",").map((o) => {
    const s = o.trim();
    if (s === "*") return s;
    try {
      return new URL(s).origin;
    } catch {
      throw new UsageError(`--origins: not an origin: ${s}`);
    }
  });
}

/** --sms-countries: "all", or ISO 3166 codes separated by commas (stored upper case, once each). */
function smsCountriesOption(v: Value): string[] | "all" | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "string" || !v.trim())
    throw new UsageError("--sms-countries must be ISO 3166 country codes separated by commas (FR,BE), or all");
  if (v.trim().toLowerCase() === "all") return "all";
  const codes = v.split(",");
  const parsed = smsCountries(codes);
  if ("invalid" in parsed)
    throw new UsageError(
      `--sms-countries: not a country with phone numbers (ISO 3166 alpha-2): ${codes[parsed.invalid]?.trim() || "(empty)"}`,
    );
  return parsed.countries;
}

/** Labels say what a key is for in `keys list`; a line of text, not a document. */
function labelOption(v: Value): string | undefined {
  const label = str(v)?.trim();
  if (label === undefined) return undefined;
  if (!label || label.length > 100 || /[\r\n]/.test(label)) throw new UsageError("--label must be one line of 1-100 characters");
  return label;
}

const COMMANDS: Command[] = [
  {
    name: "serve",
    usage: "",
    summary: 'Start the server (PORT, HOST, DATA_DIR or DATABASE_URL; see README "Configuration")',
    start: async ({ config }) => {
      await serve(config);
      return -1; // keeps running
    },
  },
  {
    name: "migrate",
    usage: "",
    summary: "Apply pending database migrations (serve also applies them at start)",
    start: async ({ config }) => {
      const store = openStore({ databaseUrl: config.DATABASE_URL, sqlitePath: config.sqlitePath, durability: config.DURABILITY });
      try {
        const { applied } = await migrate(store.db);
        console.log(applied.length ? `Applied: ${applied.join(", ")}` : "Already up to date");
      } finally {
        await store.close();
      }
      return 0;
    },
  },
  {
    name: "backup",
    usage: "FILE [--force]",
    summary: "Write a consistent copy of the store to FILE while servers keep running (SQLite: VACUUM INTO; PostgreSQL: pg_dump)",
    details: [
      "  --force   replace FILE if it exists",
      "The copy holds contacts and, unless SERVER_KEY is set, the generated master key: keep it like the database (it is",
      'written 0600). Restore: docs/operations.md, "Backup and restore".',
    ].join("\n"),
    options: { force: { type: "boolean" } },
    start: async ({ config, values, positionals }) => {
      const target = positionals[0];
      if (!target) throw new UsageError("FILE is missing");
      const file = path.resolve(target);
      const force = values.force === true;
      try {
        const report = config.DATABASE_URL
          ? await backupPostgres(config.DATABASE_URL, file, { force })
          : backupSqlite(config.sqlitePath, file, { force });
        console.log(`Backed up to ${report.file} (${(report.bytes / 1048576).toFixed(1)} MiB; ${report.method})`);
        return 0;
      } catch (e) {
        if (!(e instanceof BackupError)) throw e;
        console.error(`tessera backup: ${e.message}`);
        return 1;
      }
    },
  },
  {
    name: "projects create",
    usage: "--name NAME [--origins URL,URL] [--json]",
    summary: "Create a project with a development and a production environment; prints their client ids and secrets once",
    details: "  --origins   browser origins allowed to use the client ids (any localhost origin is allowed in development)",
    options: { name: { type: "string" }, origins: { type: "string" }, ...json },
    run: async ({ repos: { projects } }, { values }) => {
      const name = str(values.name)?.trim();
      if (!name) throw new UsageError("--name is required");
      const p = await projects.create(name, { allowedOrigins: originsOption(values.origins) });
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
    },
  },
  {
    name: "projects list",
    usage: "[--json]",
    summary: "List projects",
    options: json,
    run: async ({ repos: { projects } }, { values }) => {
      const list = await projects.list();
      if (values.json)
        console.log(JSON.stringify(list.map((p) => ({ id: p.id, name: p.name, createdAt: new Date(Number(p.created_at)).toISOString() }))));
      else for (const p of list) console.log(`${p.id}  ${p.name}`);
      return 0;
    },
  },
  {
    name: "projects rename",
    usage: "PROJECT_ID --name NAME",
    summary: "Rename a project (the name shows on the challenge page and in code emails)",
    options: { name: { type: "string" } },
    run: async ({ repos: { projects } }, { values, positionals }) => {
      const id = projectId(positionals);
      const name = str(values.name)?.trim();
      if (!name || name.length > 100) throw new UsageError("--name must be 1-100 characters");
      if (!(await projects.rename(id, name))) throw noProject(id);
      console.log(`Project ${id} is now "${name}"`);
      return 0;
    },
  },
  {
    name: "projects origins",
    usage: "PROJECT_ID --env ENV --set URL,URL",
    summary: "Set the browser origins allowed to use the environment's client id",
    options: { env: { type: "string" }, set: { type: "string" } },
    run: async (services, { values, positionals }) => {
      const id = projectId(positionals);
      const env = envOption(values.env);
      const origins = originsOption(values.set);
      if (!(await auditSettings(services, id, [env], () => services.repos.projects.setAllowedOrigins(id, env, origins))))
        throw noProject(id);
      console.log("Allowed origins updated");
      return 0;
    },
  },
  {
    name: "projects settings",
    usage:
      "PROJECT_ID [--logo-url URL] [--color #RRGGBB] [--device-limit N] [--admin-email EMAIL] [--env ENV --identity-verification MODE] [--env ENV --sms-countries CODES]",
    summary:
      "Branding of the challenge page and code emails, the default device limit, the admin emailed about shared accounts; per environment, identity verification and where codes may be texted",
    details: [
      "  --logo-url              https: or data:image/ URL of the logo",
      "  --color                 brand colour, #rgb or #rrggbb",
      "  --device-limit          devices per account before an account-sharing challenge (default 3)",
      "  --admin-email           who is emailed when an account looks shared",
      "  --env ENV --identity-verification off|optional|required",
      "                          whether client calls naming a user need your backend's user_token (default optional)",
      "  --env ENV --sms-countries FR,BE|all",
      "                          the countries (ISO 3166 codes) codes may be texted to; all (the default) is every",
      "                          country: set it in production so that no one can make you text numbers abroad",
    ].join("\n"),
    options: {
      "logo-url": { type: "string" },
      color: { type: "string" },
      "device-limit": { type: "string" },
      "admin-email": { type: "string" },
      env: { type: "string" },
      "identity-verification": { type: "string" },
      "sms-countries": { type: "string" },
    },
    run: async (services, { values, positionals }) => {
      const { projects } = services.repos;
      const id = projectId(positionals);
      const mode = str(values["identity-verification"]);
      const sms = smsCountriesOption(values["sms-countries"]);
      const patch: ProjectSettings = {};
      const logo = str(values["logo-url"]);
      if (logo !== undefined) {
        if (!/^(https:\/\/|data:image\/)/.test(logo)) throw new UsageError("--logo-url must be an https: or data:image/ URL");
        patch.logo_url = logo;
      }
      const color = str(values.color);
      if (color !== undefined) {
        if (!/^#([0-9a-f]{3}|[0-9a-f]{6})$/i.test(color)) throw new UsageError("--color must be #rgb or #rrggbb");
        patch.color = color;
      }
      const limit = str(values["device-limit"]);
      if (limit !== undefined) {
        const n = Number(limit);
        if (!Number.isInteger(n) || n < 1 || n > 100) throw new UsageError("--device-limit must be a whole number from 1 to 100");
        patch.default_device_limit = n;
      }
      const admin = str(values["admin-email"]);
      if (admin !== undefined) {
        if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(admin)) throw new UsageError("--admin-email must be an email address");
        patch.admin_email = admin;
      }
      if (mode === undefined && sms === undefined && !Object.keys(patch).length) throw new UsageError("name at least one setting");
      if (mode !== undefined) {
        if (!(IDENTITY_VERIFICATION_MODES as readonly string[]).includes(mode))
          throw new UsageError(`--identity-verification must be one of ${IDENTITY_VERIFICATION_MODES.join(", ")}`);
        const env = envOption(values.env);
        const set = () => projects.updateEnvironmentSettings(id, env, { identity_verification: mode as IdentityVerificationMode });
        if (!(await auditSettings(services, id, [env], set))) throw noProject(id);
        console.log(`Identity verification of ${env}: ${mode}`);
      }
      if (sms !== undefined) {
        const env = envOption(values.env);
        // "all" clears the setting: texts may go to every country.
        const countries = sms === "all" ? undefined : sms;
        if (!(await auditSettings(services, id, [env], () => projects.updateEnvironmentSettings(id, env, { sms_countries: countries }))))
          throw noProject(id);
        console.log(`Texts from ${env} go to: ${countries ? countries.join(", ") : "every country"}`);
      }
      if (Object.keys(patch).length) {
        if (!(await auditSettings(services, id, ENVIRONMENTS, () => projects.updateSettings(id, patch)))) throw noProject(id);
        console.log("Project settings updated");
      }
      return 0;
    },
  },
  {
    name: "keys create",
    usage: "PROJECT_ID --env ENV [--label TEXT] [--json]",
    summary: "Create another secret key (shown once); the label says what it is for in keys list",
    options: { env: { type: "string" }, label: { type: "string" }, ...json },
    run: async (services, { values, positionals }) => {
      const { projects } = services.repos;
      const id = projectId(positionals);
      const env = envOption(values.env);
      const label = labelOption(values.label);
      const key = await projects.createKey(id, env, label);
      if (!key) throw noProject(id);
      const scope = await services.repos.auditLog.keyScope(key.id, "");
      await recordCliChange(services.repos, {
        projectId: id,
        environmentId: scope?.environment_id ?? null,
        action: "key.create",
        targetType: "key",
        targetId: key.id,
        after: { id: key.id, environment: env, prefix: scope?.prefix, label: label ?? null },
      });
      console.log(values.json ? JSON.stringify(key) : `Key ${key.id}\n  secret: ${key.secret}\nShown once: keep it now.`);
      return 0;
    },
  },
  {
    name: "keys list",
    usage: "PROJECT_ID [--json]",
    summary: "List a project's keys (id, environment, prefix, label, state; never the secret)",
    options: json,
    run: async ({ repos: { projects } }, { values, positionals }) => {
      const keys = await projects.listKeys(projectId(positionals));
      if (values.json) console.log(JSON.stringify(keys));
      else
        for (const k of keys)
          console.log(`${k.id}  ${k.environment}  ${k.prefix}…  ${k.revoked_at ? "revoked" : "active"}${k.label ? `  ${k.label}` : ""}`);
      return 0;
    },
  },
  {
    name: "keys revoke",
    usage: "KEY_ID_OR_SECRET",
    summary: "Revoke a key; running servers refuse it at once",
    run: async ({ repos }, { positionals }) => {
      const target = positionals[0];
      if (!target) throw new UsageError("KEY_ID_OR_SECRET is missing");
      if (!(await repos.projects.revokeKey(target)))
        throw new UsageError("no active key matches (tessera keys list PROJECT_ID shows them)");
      const key = await repos.auditLog.keyScope(target, hashSecret(target));
      if (key)
        await recordCliChange(repos, {
          projectId: key.project_id,
          environmentId: key.environment_id,
          action: "key.revoke",
          targetType: "key",
          targetId: key.id,
          after: { id: key.id, prefix: key.prefix, revoked: true },
        });
      console.log("Key revoked");
      return 0;
    },
  },
  {
    name: "keys identity-secret",
    usage: "PROJECT_ID --env ENV [--json]",
    summary: "Create or rotate the environment's identity secret, which signs user tokens (shown once; the old one stops at once)",
    options: { env: { type: "string" }, ...json },
    run: async (services, { values, positionals }) => {
      const id = projectId(positionals);
      const env = envOption(values.env);
      let secret: string | undefined;
      // The entry names the rotation; the secret itself is never in it.
      const rotate = async () => {
        secret = await services.identity.rotate(id, env);
        return secret !== undefined;
      };
      if (!(await auditSettings(services, id, [env], rotate, "identity_secret.rotate")) || !secret) throw noProject(id);
      console.log(
        values.json
          ? JSON.stringify({ environment: env, identity_secret: secret })
          : `Identity secret of ${env}: ${secret}\nShown once: keep it in your backend's configuration (user_token = base64url HMAC-SHA256 of the user id).`,
      );
      return 0;
    },
  },
  {
    name: "operators create",
    usage: "--email EMAIL --role owner|analyst|viewer (--project PROJECT_ID ... | --all-projects)",
    summary:
      "Create a console operator (or add projects to one, or change its role on them) and print a one-time sign-in link where it chooses its password (24 h); ends its sessions",
    details:
      "  --project       a project the operator may see (repeat it for several)\n  --all-projects  every project, present and future: the installation's administrators",
    options: {
      email: { type: "string" },
      role: { type: "string" },
      project: { type: "string", multiple: true },
      "all-projects": { type: "boolean" },
    },
    run: async (services, { values }) => {
      const email = str(values.email);
      if (!email) throw new UsageError("--email is required");
      const role = str(values.role);
      if (!role || !(ROLES as readonly string[]).includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(", ")}`);
      const projectIds = Array.isArray(values.project) ? values.project : [];
      const allProjects = values["all-projects"] === true;
      if (!allProjects && projectIds.length === 0) throw new UsageError("--project PROJECT_ID (repeatable) or --all-projects is required");
      try {
        const existing = await services.repos.operators.findByEmail(email);
        const before = existing ? await services.operators.access(existing) : { allProjects: null, projects: [] };
        const { operator, created, link } = await services.operators.create({ email, role: role as Role, projectIds, allProjects });
        await auditOperator(services, "operator.create", { operator, before, after: await services.operators.access(operator) });
        console.log(
          `${created ? "Created" : "Updated"} operator ${operator.email} (${role} on ${allProjects ? "every project" : projectIds.join(", ")})\n` +
            `  one-time sign-in link (24 h): ${link}`,
        );
      } catch (e) {
        if (e instanceof ApiError) throw new UsageError(e.message);
        throw e;
      }
      return 0;
    },
  },
  {
    name: "operators link",
    usage: "--email EMAIL",
    summary: "Print a new one-time sign-in link for an operator (a forgotten or exposed password); ends its sessions",
    options: { email: { type: "string" } },
    run: async (services, { values }) => {
      const email = str(values.email);
      if (!email) throw new UsageError("--email is required");
      const operator = await services.repos.operators.findByEmail(email);
      if (!operator) throw new UsageError(`no operator ${email}`);
      const link = await services.operators.issueLink(operator.id);
      const access = await services.operators.access(operator);
      await auditOperator(services, "operator.link", { operator, before: access, after: access });
      console.log(`One-time sign-in link for ${operator.email} (24 h): ${link}\nIts sessions have ended.`);
      return 0;
    },
  },
  {
    name: "operators remove",
    usage: "--email EMAIL [--project PROJECT_ID ... | --all-projects]",
    summary: "Remove a console operator, or take it off some projects; ends every session of it",
    details: [
      "  (neither)       remove the operator and every role it has",
      "  --project       take it off this project only (repeat it for several); it keeps the others",
      "  --all-projects  take its all-projects role only; it keeps the projects granted one by one",
      "The installation's last administrator (owner of every project) cannot be removed: make another first.",
    ].join("\n"),
    options: { email: { type: "string" }, project: { type: "string", multiple: true }, "all-projects": { type: "boolean" } },
    run: async (services, { values }) => {
      const email = emailOption(values.email);
      const change = await operatorChange(() => services.operators.remove(email, scopeOption(values)));
      await auditOperator(services, "operator.remove", change);
      console.log(
        change.after
          ? `Operator ${change.operator.email} now: ${describeAccess(change.after)}; its sessions have ended`
          : `Removed operator ${change.operator.email}; its sessions have ended`,
      );
      return 0;
    },
  },
  {
    name: "operators role",
    usage: "--email EMAIL --role owner|analyst|viewer [--project PROJECT_ID ... | --all-projects]",
    summary: "Change a console operator's role; ends every session of it, so its next one has the new rights",
    details: [
      "  (neither)       the role on every project it has, and on all projects if it is an administrator",
      "  --project       the role on this project only (repeat it for several; operators create adds projects)",
      "  --all-projects  its all-projects role only",
      "On a project, an operator has the stronger of its all-projects role and that project's role.",
      "The installation's last administrator (owner of every project) cannot be made analyst or viewer there.",
    ].join("\n"),
    options: {
      email: { type: "string" },
      role: { type: "string" },
      project: { type: "string", multiple: true },
      "all-projects": { type: "boolean" },
    },
    run: async (services, { values }) => {
      const email = emailOption(values.email);
      const role = roleOption(values.role);
      const change = await operatorChange(() => services.operators.setRole(email, role, scopeOption(values)));
      await auditOperator(services, "operator.role", change);
      console.log(`Operator ${change.operator.email} now: ${describeAccess(change.after as OperatorAccess)}; its sessions have ended`);
      return 0;
    },
  },
  importCommand,
];

function emailOption(v: Value): string {
  const email = str(v)?.trim();
  if (!email) throw new UsageError("--email is required");
  return email;
}

function roleOption(v: Value): Role {
  const role = str(v);
  if (!role || !(ROLES as readonly string[]).includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(", ")}`);
  return role as Role;
}

function scopeOption(values: Values): OperatorScope {
  const projectIds = Array.isArray(values.project) ? values.project : [];
  const allProjects = values["all-projects"] === true;
  if (allProjects && projectIds.length) throw new UsageError("--project and --all-projects cannot be given together");
  return { projectIds, allProjects };
}

/** A service's refusal as the CLI says it: bad input (400) is a usage error, a refused change (409) one line too. */
async function operatorChange(change: () => Promise<OperatorChange>): Promise<OperatorChange> {
  try {
    return await change();
  } catch (e) {
    if (e instanceof ApiError && e.status === 409) throw new Refused(e.message);
    if (e instanceof ApiError) throw new UsageError(e.message.charAt(0).toLowerCase() + e.message.slice(1));
    throw e;
  }
}

const describeAccess = (a: OperatorAccess): string =>
  [...(a.allProjects ? [`${a.allProjects} on every project`] : []), ...a.projects.map((p) => `${p.role} on ${p.id}`)].join(", ") ||
  "no project";

/**
 * The audit log of each project the change touched shows it (actor cli); a change to the all-projects role is also
 * kept as an installation-wide entry. Roles, never passwords or links.
 */
async function auditOperator(services: Services, action: string, change: OperatorChange): Promise<void> {
  const target = { operator: change.operator.email };
  const projects = new Set([...change.before.projects.map((p) => p.id), ...(change.after?.projects.map((p) => p.id) ?? [])]);
  const roleOn = (a: OperatorAccess | null, id: string) => a?.projects.find((p) => p.id === id)?.role ?? null;
  for (const id of projects)
    await recordCliChange(services.repos, {
      projectId: id,
      action,
      targetType: "operator",
      targetId: change.operator.id,
      before: { ...target, role: roleOn(change.before, id), all_projects: change.before.allProjects },
      after: change.after ? { ...target, role: roleOn(change.after, id), all_projects: change.after.allProjects } : null,
    });
  if (change.before.allProjects || change.after?.allProjects)
    await recordCliChange(services.repos, {
      projectId: null,
      action,
      targetType: "operator",
      targetId: change.operator.id,
      before: { ...target, all_projects: change.before.allProjects },
      after: change.after ? { ...target, all_projects: change.after.allProjects } : null,
    });
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}

const line = (c: Command) => `tessera ${c.name}${c.usage ? ` ${c.usage}` : ""}`;

function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    "Usage: tessera <command> [options]",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "tessera <command> --help shows a command's options; tessera --version its version.",
    'Settings come from the environment (DATA_DIR, DATABASE_URL, PORT, …): see README.md "Configuration".',
  ].join("\n");
}

function help(c: Command): string {
  return [
    `Usage: ${line(c)}`,
    "",
    c.summary,
    ...(c.details ? ["", c.details] : []),
    "",
    "Options:",
    "  -h, --help  show this help and do nothing else",
  ].join("\n");
}

/** The command named by the first words of argv (two words before one: "projects create" before "projects"). */
function find(argv: string[]): { command?: Command; rest: string[]; group?: string } {
  const two = COMMANDS.find((c) => c.name === `${argv[0]} ${argv[1]}`);
  if (two) return { command: two, rest: argv.slice(2) };
  const one = COMMANDS.find((c) => c.name === argv[0]);
  if (one) return { command: one, rest: argv.slice(1) };
  const group = argv[0] && COMMANDS.some((c) => c.name.startsWith(`${argv[0]} `)) ? argv[0] : undefined;
  return { rest: argv.slice(group ? 1 : 0), group };
}

const fail = (message: string, hint: string): number => {
  console.error(`tessera: ${message} (${hint})`);
  return 2;
};

export async function main(argv: string[]): Promise<number> {
  const wantsHelp = argv.includes("--help") || argv.includes("-h");
  if (argv[0] === "--version" || argv[0] === "-v" || argv[0] === "version") {
    console.log(version());
    return 0;
  }
  if (argv.length === 0 || argv[0] === "help" || (wantsHelp && (argv[0] === "--help" || argv[0] === "-h"))) {
    const { command } = find(argv.slice(1));
    console.log(command ? help(command) : overview());
    return argv.length === 0 ? 2 : 0;
  }
  const { command, rest, group } = find(argv);
  if (!command) {
    if (group) {
      const subs = COMMANDS.filter((c) => c.name.startsWith(`${group} `)).map((c) => c.name.slice(group.length + 1));
      if (wantsHelp) {
        console.log(
          COMMANDS.filter((c) => c.name.startsWith(`${group} `))
            .map(line)
            .join("\n"),
        );
        return 0;
      }
      return fail(rest[0] ? `unknown command: ${group} ${rest[0]}` : `${group} needs a subcommand: ${subs.join(", ")}`, "tessera --help");
    }
    return fail(`unknown command: ${argv[0]}`, "tessera --help lists the commands");
  }
  // --help never acts: no configuration read, no store opened, no server started.
  if (wantsHelp) {
    console.log(help(command));
    return 0;
  }
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: rest, options: command.options ?? {}, allowPositionals: true, strict: true }) as typeof parsed;
  } catch (e) {
    const message = (e as Error).message.replace(/\. To specify a positional argument.*$/s, "").replace(/\.$/, "");
    return fail(message.charAt(0).toLowerCase() + message.slice(1), `tessera ${command.name} --help`);
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      return 2;
    }
    throw e;
  }
  const args = { ...parsed, config };
  try {
    if ("start" in command) return await command.start(args);
    // One-off commands run no background workers (webhook delivery, retention): `serve` does.
    const services = await createServices({ ...config, WORKERS: false }, { groupCommit: false });
    try {
      return await command.run(services, args);
    } finally {
      await services.close();
    }
  } catch (e) {
    if (e instanceof UsageError) return fail(e.message, `tessera ${command.name} --help`);
    if (e instanceof Refused) {
      console.error(`tessera: refused: ${e.message}`);
      return 1;
    }
    // A setting that stops the start (an unreachable database, a port in use…): one line, no stack trace.
    const line = describeStartupError(e, config);
    if (!line) throw e;
    console.error(line);
    return 1;
  }
}

// `tessera projects …` (docs/projects.md): create, list and rename projects, set the browser origins allowed to use an
// environment's client id, and the settings (branding, device limit, admin email; per environment, identity
// verification and where codes may be texted). A settings change goes to the audit log as the console's does.
import { ENVIRONMENTS, IDENTITY_VERIFICATION_MODES, type IdentityVerificationMode } from "@tessera/sdk/contract";
import { smsCountries } from "../delivery/addresses.js";
import type { ProjectSettings } from "../store/projects.js";
import { auditSettings } from "./audit.js";
import { type Command, envOption, json, noProject, projectId, str, UsageError, type Value } from "./options.js";

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

export const projectCommands: Command[] = [
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
];

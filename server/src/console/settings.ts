// An environment's settings as the console shows and changes them (docs/console.md): its client id and allowed origins,
// the project's branding (name, logo, colour) of the challenge page, the default device limit, the admin email, the
// identity-verification setting and the countries texts may go to; and the environment's secret keys (created shown
// once, revoked at once).
import type { EnvironmentSettings, EnvironmentSettingsPatch } from "@tessera/sdk/contract";
import { smsCountries } from "../delivery/addresses.js";
import { badRequest, notFound } from "../errors.js";
import { projectDeviceLimit } from "../policies/device-limit.js";
import type { EnvironmentRecord, ProjectSettings } from "../store/projects.js";
import type { Repos } from "../store/repos.js";
import { iso } from "../time.js";

/** The project's shared settings (branding, device limit, admin email); identity verification is the environment's. */
type Settings = ProjectSettings;

/** What the settings are read and written with. */
export type SettingsServices = { repos: Repos };

export async function readSettings(services: SettingsServices, environmentId: string): Promise<EnvironmentSettings | undefined> {
  const env = await services.repos.projects.environmentById(environmentId);
  if (!env) return undefined;
  const s = env.settings as Settings;
  return {
    environment: { id: env.id, name: env.name },
    project: { id: env.projectId, name: env.projectName },
    client_id: env.clientId,
    allowed_origins: env.allowedOrigins,
    ...(s.logo_url ? { logo_url: s.logo_url } : {}),
    ...(s.color ? { color: s.color } : {}),
    default_device_limit: projectDeviceLimit(s),
    ...(s.admin_email ? { admin_email: s.admin_email } : {}),
    identity_verification: env.environmentSettings.identity_verification ?? "optional",
    ...(env.environmentSettings.sms_countries ? { sms_countries: env.environmentSettings.sms_countries } : {}),
  };
}

function origin(value: string, i: number): string {
  const s = value.trim();
  if (s === "*") return s;
  try {
    const u = new URL(s);
    if ((u.protocol === "https:" || u.protocol === "http:") && u.origin === s.replace(/\/$/, "")) return u.origin;
  } catch {
    // reported below
  }
  throw badRequest(`Not an origin (scheme://host[:port]): ${s}`, `allowed_origins.${i}`);
}

export async function updateSettings(
  services: SettingsServices,
  env: EnvironmentRecord,
  patch: EnvironmentSettingsPatch,
): Promise<EnvironmentSettings> {
  const { projects } = services.repos;
  if (patch.allowed_origins) {
    const origins = [...new Set(patch.allowed_origins.map(origin))];
    await projects.setAllowedOrigins(env.projectId, env.name, origins);
  }
  const project: Settings = {};
  const cleared: (keyof Settings)[] = [];
  for (const key of ["logo_url", "color", "admin_email"] as const) {
    const v = patch[key];
    if (v === null) cleared.push(key);
    else if (v !== undefined) project[key] = v;
  }
  if (patch.default_device_limit !== undefined) project.default_device_limit = patch.default_device_limit;
  if (patch.identity_verification !== undefined)
    await projects.updateEnvironmentSettings(env.projectId, env.name, { identity_verification: patch.identity_verification });
  if (patch.sms_countries !== undefined) {
    let countries: string[] | undefined;
    if (patch.sms_countries !== null) {
      const parsed = smsCountries(patch.sms_countries);
      if ("invalid" in parsed)
        throw badRequest(
          `Not a country with phone numbers (ISO 3166 alpha-2): ${patch.sms_countries[parsed.invalid]}`,
          `sms_countries.${parsed.invalid}`,
        );
      countries = parsed.countries;
    }
    // undefined (null in the patch) clears it: texts may go to every country again.
    await projects.updateEnvironmentSettings(env.projectId, env.name, { sms_countries: countries });
  }
  if (Object.keys(project).length || cleared.length) {
    const current = { ...(env.settings as Settings), ...project };
    for (const key of cleared) delete current[key];
    await projects.replaceSettings(env.projectId, current);
  }
  const out = await readSettings(services, env.id);
  if (!out) throw notFound("Environment");
  return out;
}

export async function listKeys(services: SettingsServices, env: EnvironmentRecord) {
  const keys = await services.repos.projects.listKeys(env.projectId);
  return keys
    .filter((k) => k.environment === env.name)
    .map((k) => ({
      id: k.id,
      prefix: k.prefix,
      environment: env.name,
      ...(k.label ? { label: k.label } : {}),
      createdAt: iso(Number(k.created_at)),
      ...(k.revoked_at != null ? { revoked_at: iso(Number(k.revoked_at)) } : {}),
      ...(k.last_used_at != null ? { last_used_at: iso(Number(k.last_used_at)) } : {}),
    }));
}

export async function createKey(services: SettingsServices, env: EnvironmentRecord, label?: string) {
  const key = await services.repos.projects.createKey(env.projectId, env.name, label?.trim() || undefined);
  if (!key) throw notFound("Environment");
  const listed = (await listKeys(services, env)).find((k) => k.id === key.id);
  if (!listed) throw notFound("Key");
  return { ...listed, secret: key.secret };
}

export async function revokeKey(services: SettingsServices, env: EnvironmentRecord, id: string) {
  const mine = (await listKeys(services, env)).find((k) => k.id === id);
  if (!mine) throw notFound("Key");
  await services.repos.projects.revokeKey(id);
  return (await listKeys(services, env)).find((k) => k.id === id)!;
}

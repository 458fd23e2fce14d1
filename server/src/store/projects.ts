// Repository of projects, their environments (client ids, allowed origins) and secret keys (docs/projects.md).
import { createHash } from "node:crypto";
import type { Environment, IdentityVerificationMode } from "@tessera/sdk/contract";
import { ShortCache } from "../caches.js";
import { newId, newSecret } from "../ids.js";
import { now } from "../time.js";
import { Repository } from "./transactions.js";

export interface ProjectSettings {
  logo_url?: string;
  color?: string;
  default_device_limit?: number;
  admin_email?: string;
}

/** Settings of one environment (environments.settings), beside the project's shared ones. */
export interface EnvironmentSettings {
  /** docs/security.md: whether client calls naming a user need a backend-signed user_token (default optional). */
  identity_verification?: IdentityVerificationMode;
  /** The countries (ISO 3166 alpha-2) texts may go to; absent: every country (challenges/code-sender.ts). */
  sms_countries?: string[];
}

export interface EnvironmentRecord {
  id: string;
  projectId: string;
  projectName: string;
  name: Environment;
  clientId: string;
  allowedOrigins: string[];
  settings: ProjectSettings;
  environmentSettings: EnvironmentSettings;
  /** The identity secret sealed under the server key (identity-verification/), if one was created. */
  sealedIdentitySecret?: string;
}

export interface CreatedProject {
  id: string;
  name: string;
  environments: Record<Environment, { id: string; client_id: string; secret: string }>;
}

/** How long another instance's change to an environment (origins, project settings) may take to show here. */
const CLIENT_ID_CACHE_MS = 2000;
/** A key's last use is kept to the minute: enough to tell a key in use from a forgotten one, and one write a minute. */
const KEY_USE_RESOLUTION_MS = 60_000;

export const hashSecret = (secret: string): string => createHash("sha256").update(secret).digest("hex");

function toRecord(r: {
  id: string;
  project_id: string;
  project_name: string;
  name: string;
  client_id: string;
  allowed_origins: string;
  settings: string;
  environment_settings: string;
  identity_secret: string | null;
}): EnvironmentRecord {
  return {
    id: r.id,
    projectId: r.project_id,
    projectName: r.project_name,
    name: r.name as Environment,
    clientId: r.client_id,
    allowedOrigins: JSON.parse(r.allowed_origins) as string[],
    settings: JSON.parse(r.settings) as ProjectSettings,
    environmentSettings: JSON.parse(r.environment_settings) as EnvironmentSettings,
    ...(r.identity_secret ? { sealedIdentitySecret: r.identity_secret } : {}),
  };
}

export class ProjectsRepo extends Repository {
  private envQuery() {
    return this.db
      .selectFrom("environments")
      .innerJoin("projects", "projects.id", "environments.project_id")
      .select([
        "environments.id",
        "environments.project_id",
        "projects.name as project_name",
        "environments.name",
        "environments.client_id",
        "environments.allowed_origins",
        "projects.settings",
        "environments.settings as environment_settings",
        "environments.identity_secret",
      ]);
  }

  async create(name: string, opts: { allowedOrigins?: string[]; settings?: ProjectSettings } = {}): Promise<CreatedProject> {
    const t = now();
    const projectId = newId("prj");
    const envs = {} as CreatedProject["environments"];
    await this.transactions.run(async () => {
      await this.db
        .insertInto("projects")
        .values({ id: projectId, name, settings: JSON.stringify(opts.settings ?? {}), created_at: t, updated_at: t })
        .execute();
      for (const env of ["development", "production"] as const) {
        const id = newId("env");
        const clientId = newId(env === "production" ? "pk_live" : "pk_test");
        await this.db
          .insertInto("environments")
          .values({
            id,
            project_id: projectId,
            name: env,
            client_id: clientId,
            allowed_origins: JSON.stringify(opts.allowedOrigins ?? []),
            settings: "{}",
            identity_secret: null,
            created_at: t,
          })
          .execute();
        const secret = await this.insertKey(id, env, "created with the project");
        envs[env] = { id, client_id: clientId, secret };
      }
    });
    return { id: projectId, name, environments: envs };
  }

  private async insertKey(environmentId: string, env: Environment, label: string | null): Promise<string> {
    const secret = newSecret(env === "production" ? "sk_live" : "sk_test");
    await this.db
      .insertInto("api_keys")
      .values({
        id: newId("key"),
        environment_id: environmentId,
        hash: hashSecret(secret),
        prefix: secret.slice(0, 12),
        label,
        created_at: now(),
        revoked_at: null,
      })
      .execute();
    return secret;
  }

  async createKey(projectId: string, env: Environment, label?: string): Promise<{ id: string; secret: string } | undefined> {
    const environment = await this.db
      .selectFrom("environments")
      .select("id")
      .where("project_id", "=", projectId)
      .where("name", "=", env)
      .executeTakeFirst();
    if (!environment) return undefined;
    const secret = await this.insertKey(environment.id, env, label ?? null);
    const row = await this.db.selectFrom("api_keys").select("id").where("hash", "=", hashSecret(secret)).executeTakeFirstOrThrow();
    return { id: row.id, secret };
  }

  /** Revokes by key id or by the secret itself; answers whether a live key was revoked. */
  async revokeKey(idOrSecret: string): Promise<boolean> {
    const res = await this.db
      .updateTable("api_keys")
      .set({ revoked_at: now() })
      .where((eb) => eb.or([eb("id", "=", idOrSecret), eb("hash", "=", hashSecret(idOrSecret))]))
      .where("revoked_at", "is", null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  async listKeys(projectId: string) {
    return this.db
      .selectFrom("api_keys")
      .innerJoin("environments", "environments.id", "api_keys.environment_id")
      .select([
        "api_keys.id",
        "api_keys.prefix",
        "api_keys.label",
        "environments.name as environment",
        "api_keys.created_at",
        "api_keys.revoked_at",
        "api_keys.last_used_at",
      ])
      .where("environments.project_id", "=", projectId)
      .orderBy("api_keys.created_at")
      .execute();
  }

  /**
   * The environment a live secret belongs to; read from the store on every call so revocation is immediate. Notes the
   * key's use (last_used_at) when the one on record is a minute old or more: one write a minute per key at most.
   */
  async environmentBySecret(secret: string): Promise<EnvironmentRecord | undefined> {
    const row = await this.envQuery()
      .innerJoin("api_keys", "api_keys.environment_id", "environments.id")
      .select(["api_keys.id as key_id", "api_keys.last_used_at as key_last_used_at"])
      .where("api_keys.hash", "=", hashSecret(secret))
      .where("api_keys.revoked_at", "is", null)
      .executeTakeFirst();
    if (!row) return undefined;
    await this.noteKeyUse(row.key_id, row.key_last_used_at == null ? null : Number(row.key_last_used_at));
    return toRecord(row);
  }

  /** When this process last wrote each key's use: requests in the same minute skip even the conditional update. */
  private readonly keyUseWritten = new Map<string, number>();

  private async noteKeyUse(keyId: string, onRecord: number | null): Promise<void> {
    const at = now();
    const since = at - KEY_USE_RESOLUTION_MS;
    if ((onRecord ?? 0) > since || (this.keyUseWritten.get(keyId) ?? 0) > since) return;
    this.keyUseWritten.set(keyId, at);
    try {
      // Conditional: of several instances (or requests) that read the same old time, one writes.
      await this.db
        .updateTable("api_keys")
        .set({ last_used_at: at })
        .where("id", "=", keyId)
        .where((eb) => eb.or([eb("last_used_at", "is", null), eb("last_used_at", "<=", since)]))
        .execute();
    } catch {
      // A store that cannot be written right now must not refuse a read the key may make: the time waits a minute.
      this.keyUseWritten.delete(keyId);
    }
  }

  /**
   * The environment of a public client id, through a short per-process cache: every browser call starts here. Writes
   * through this process clear it at once; another instance's change of origins or settings shows within
   * CLIENT_ID_CACHE_MS. (Secret keys are never cached: a revoked key stops working at once.)
   */
  async environmentByClientId(clientId: string): Promise<EnvironmentRecord | undefined> {
    return this.byClientId.get(clientId, async () => {
      const row = await this.envQuery().where("environments.client_id", "=", clientId).executeTakeFirst();
      return row && toRecord(row);
    });
  }

  private readonly byClientId = new ShortCache<EnvironmentRecord | undefined>(CLIENT_ID_CACHE_MS);

  /** A project's environment by its name (the CLI names environments so). */
  async environmentOf(projectId: string, env: Environment): Promise<EnvironmentRecord | undefined> {
    const row = await this.envQuery()
      .where("environments.project_id", "=", projectId)
      .where("environments.name", "=", env)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  async environmentById(id: string): Promise<EnvironmentRecord | undefined> {
    const row = await this.envQuery().where("environments.id", "=", id).executeTakeFirst();
    return row && toRecord(row);
  }

  async list() {
    return this.db.selectFrom("projects").select(["id", "name", "created_at"]).orderBy("created_at").execute();
  }

  async count(): Promise<number> {
    const r = await this.db
      .selectFrom("projects")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async rename(projectId: string, name: string): Promise<boolean> {
    const r = await this.db.updateTable("projects").set({ name, updated_at: now() }).where("id", "=", projectId).executeTakeFirst();
    this.byClientId.invalidate();
    return Number(r.numUpdatedRows) > 0;
  }

  async setAllowedOrigins(projectId: string, env: Environment, origins: string[]): Promise<boolean> {
    const r = await this.db
      .updateTable("environments")
      .set({ allowed_origins: JSON.stringify(origins) })
      .where("project_id", "=", projectId)
      .where("name", "=", env)
      .executeTakeFirst();
    this.byClientId.invalidate();
    return Number(r.numUpdatedRows) > 0;
  }

  async updateSettings(projectId: string, patch: ProjectSettings): Promise<boolean> {
    const row = await this.db.selectFrom("projects").select("settings").where("id", "=", projectId).executeTakeFirst();
    if (!row) return false;
    await this.replaceSettings(projectId, { ...(JSON.parse(row.settings) as ProjectSettings), ...patch });
    return true;
  }

  /** Replaces the project's settings whole (the console's settings screen, which may also clear one). */
  async replaceSettings(projectId: string, settings: ProjectSettings): Promise<void> {
    await this.db
      .updateTable("projects")
      .set({ settings: JSON.stringify(settings), updated_at: now() })
      .where("id", "=", projectId)
      .execute();
    this.byClientId.invalidate();
  }

  /** Merges `patch` into one environment's own settings; answers whether the environment exists. */
  async updateEnvironmentSettings(projectId: string, env: Environment, patch: EnvironmentSettings): Promise<boolean> {
    const row = await this.db
      .selectFrom("environments")
      .select(["id", "settings"])
      .where("project_id", "=", projectId)
      .where("name", "=", env)
      .executeTakeFirst();
    if (!row) return false;
    const settings = { ...(JSON.parse(row.settings) as EnvironmentSettings), ...patch };
    await this.db
      .updateTable("environments")
      .set({ settings: JSON.stringify(settings) })
      .where("id", "=", row.id)
      .execute();
    this.byClientId.invalidate();
    return true;
  }

  /** Replaces an environment's sealed identity secret; answers whether the environment exists. */
  async setIdentitySecret(projectId: string, env: Environment, sealed: string): Promise<boolean> {
    const r = await this.db
      .updateTable("environments")
      .set({ identity_secret: sealed })
      .where("project_id", "=", projectId)
      .where("name", "=", env)
      .executeTakeFirst();
    this.byClientId.invalidate();
    return Number(r.numUpdatedRows) > 0;
  }

  /** The oldest project's environment of this name (the one the demo site uses). */
  async firstEnvironment(env: Environment): Promise<EnvironmentRecord | undefined> {
    const row = await this.envQuery().where("environments.name", "=", env).orderBy("projects.created_at").limit(1).executeTakeFirst();
    return row && toRecord(row);
  }

  async putSetting(key: string, value: string): Promise<void> {
    await this.db
      .insertInto("settings")
      .values({ key, value })
      .onConflict((oc) => oc.column("key").doUpdateSet({ value }))
      .execute();
  }

  async getSetting(key: string): Promise<string | undefined> {
    return (await this.db.selectFrom("settings").select("value").where("key", "=", key).executeTakeFirst())?.value;
  }

  /**
   * Writes a store-wide setting only if it is absent; answers whether this call wrote it. Of concurrent claims (two
   * instances starting together) exactly one wins: the others wait for its commit on the key, then find it taken.
   */
  async claimSetting(key: string, value: string): Promise<boolean> {
    const r = await this.db
      .insertInto("settings")
      .values({ key, value })
      .onConflict((oc) => oc.column("key").doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  /** A store-wide setting (e.g. the generated challenge-token secret), created once with `make` if absent. */
  async setting(key: string, make: () => string): Promise<string> {
    const found = await this.db.selectFrom("settings").select("value").where("key", "=", key).executeTakeFirst();
    if (found) return found.value;
    await this.db
      .insertInto("settings")
      .values({ key, value: make() })
      .onConflict((oc) => oc.column("key").doNothing())
      .execute();
    const row = await this.db.selectFrom("settings").select("value").where("key", "=", key).executeTakeFirstOrThrow();
    return row.value;
  }
}

// Integration-test helpers: every store test runs against both stores (SQLite in a temp dir, a fresh PostgreSQL
// database per use), through the real Fastify app.

import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { FastifyInstance, InjectOptions } from "fastify";
import type { Kysely } from "kysely";
import pg from "pg";
import { describe } from "vitest";
import { type BrowserState, components } from "../scenarios/population/browsers.js";
import { type DeviceModel, FONTS, MODELS } from "../scenarios/population/catalogue.js";
import { stream } from "../scenarios/population/random.js";
import { buildApp } from "../src/app.js";
import { type Config, loadConfig } from "../src/config.js";
import { createServices, type Services } from "../src/services.js";
import { openStore, type Store } from "../src/store/db.js";
import { migrate } from "../src/store/migrations/index.js";
import type { CreatedProject } from "../src/store/projects.js";
import { clonePg, cloneSqlite } from "./templates.js";
import { ALL_STORES, type StoreKind, testStores } from "./test-stores.js";

export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
export const PG_AVAILABLE = process.env.TESSERA_TEST_PG === "1";

export type { StoreKind };
/** The stores every store test runs on: both, unless TESSERA_TEST_STORES names one (test-stores.ts; never in CI). */
export const STORES: StoreKind[] = testStores();

/**
 * `describe.each(STORES)`: the suite on each store, `%s` in its name standing for the store. A store left out (by
 * TESSERA_TEST_STORES, or PostgreSQL unreachable outside CI, which global-setup.ts says loudly) still has its suite
 * registered and reported as skipped, so the counts show what did not run instead of losing it.
 */
export function describeStores(name: string, fn: (kind: StoreKind) => void): void {
  for (const kind of ALL_STORES)
    describe.skipIf(!STORES.includes(kind) || (kind === "postgres" && !PG_AVAILABLE))(name.replace("%s", kind), () => fn(kind));
}

export interface TestDatabase {
  env: Record<string, string>;
  drop(): Promise<void>;
}

/**
 * A fresh, empty store: a temp SQLite folder, or a new PostgreSQL database dropped afterwards. For the tests of the
 * migrations and of what a server does on an empty store; the others take a migratedDatabase.
 */
export async function freshDatabase(kind: StoreKind): Promise<TestDatabase> {
  return newDatabase(kind, false);
}

/**
 * A fresh store already migrated to this version: a copy of the migrated template (templates.ts), which costs a file
 * copy or a CREATE DATABASE instead of running every migration. The SQLite file is `DATA_DIR/tessera.db`, where the
 * server looks.
 */
export async function migratedDatabase(kind: StoreKind): Promise<TestDatabase> {
  return newDatabase(kind, true);
}

async function newDatabase(kind: StoreKind, migrated: boolean): Promise<TestDatabase> {
  if (kind === "sqlite") {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tessera-test-"));
    if (migrated) await cloneSqlite(path.join(dir, "tessera.db"));
    return { env: { DATA_DIR: dir }, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `tessera_test_${randomBytes(6).toString("hex")}`;
  if (migrated) await clonePg(ADMIN_URL, name);
  else {
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
  }
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString() },
    drop: async () => {
      const a = new pg.Client({ connectionString: ADMIN_URL });
      await a.connect();
      await a.query(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}

/**
 * A fresh store migrated to this version, then taken back to before one migration (its `down`): a migration's test
 * writes the rows of that time through `db` (untyped: the tables as they were), then runs its `up`.
 */
// biome-ignore lint/suspicious/noExplicitAny: the tables as they were, without the typed schema's newer columns.
type Untyped = Kysely<any>;

export async function storeBefore(
  kind: StoreKind,
  migration: { down(db: Kysely<unknown>): Promise<void> },
): Promise<{ database: TestDatabase; store: Store; db: Untyped }> {
  const database = await freshDatabase(kind);
  const store = openStore(
    kind === "sqlite" ? { sqlitePath: path.join(database.env.DATA_DIR as string, "t.db") } : { databaseUrl: database.env.DATABASE_URL },
  );
  await migrate(store.db);
  await migration.down(store.db as unknown as Kysely<unknown>);
  return { database, store, db: store.db as unknown as Untyped };
}

export function testConfig(env: Record<string, string>): Config {
  return loadConfig({ NODE_ENV: "test", LOG_LEVEL: "silent", BOOTSTRAP_PROJECT: "0", PUBLIC_URL: "http://localhost:8080", ...env });
}

export interface TestApp {
  kind: StoreKind;
  app: FastifyInstance;
  services: Services;
  project: CreatedProject;
  secret: string;
  clientId: string;
  /** Another project's development secret, to prove isolation. */
  otherSecret: string;
  auth: { authorization: string };
  close(): Promise<void>;
}

/** What a real desktop browser sends; Fastify's inject would otherwise say "lightMyRequest", a bot user agent. */
export const BROWSER_UA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36";

export async function startTestApp(kind: StoreKind, env: Record<string, string> = {}): Promise<TestApp> {
  const db = await migratedDatabase(kind);
  const services = await createServices(testConfig({ ...db.env, ...env }), { migrate: false });
  const app = await buildApp(services, { logger: false });
  await app.ready();
  const inject = app.inject.bind(app);
  // Requests come from a browser unless a test says otherwise (its own user-agent header wins).
  app.inject = ((opts: InjectOptions) =>
    inject({ ...opts, headers: { "user-agent": BROWSER_UA, ...(opts.headers ?? {}) } })) as typeof app.inject;
  const project = await services.repos.projects.create("Test project");
  const other = await services.repos.projects.create("Other project");
  const secret = project.environments.development.secret;
  return {
    kind,
    app,
    services,
    project,
    secret,
    clientId: project.environments.development.client_id,
    otherSecret: other.environments.development.secret,
    auth: { authorization: `Bearer ${secret}` },
    async close() {
      await app.close();
      await services.close();
      await db.drop();
    },
  };
}

/** A browser of the population model (server/scenarios/population) on `model`, with these settings changed. */
function browserComponents(
  modelId: string,
  settings: Partial<BrowserState>,
  overrides: Record<string, unknown>,
): Record<string, { value: unknown }> {
  const model = MODELS.find((m) => m.id === modelId) as DeviceModel;
  const state: BrowserState = {
    model,
    browser: "chrome",
    version: 142,
    osBuild: "11.24H2",
    cores: model.cores[0] as number,
    ramGb: model.ramGb[0] as number,
    screen: 0,
    docked: false,
    externalScreen: [1920, 1080],
    extraFonts: [],
    textSize: 0,
    dockSize: 0,
    taskbar: 40,
    tz: "Europe/Paris",
    lang: "fr-FR",
    langs: ["fr-FR", "fr", "en-US", "en"],
    locale: "fr-FR",
    reducedMotion: false,
    applePay: false,
    contentBlocker: [],
    pdfViewer: true,
    private: false,
    farbleSession: 1,
    ...settings,
  };
  const base = { ...components(state), ...overrides };
  return Object.fromEntries(Object.entries(base).map(([k, v]) => [k, { value: v }]));
}

/**
 * Components as FingerprintJS 5.2 reports them for Chrome on a Windows laptop (the population model's), varied by
 * `seed` through the fonts installed and the taskbar, so that distinct seeds are distinct browsers with identifying
 * fingerprints (docs/identity.md) and one seed is always the same browser. `overrides` replace component values.
 */
export function fakeComponents(seed: string, overrides: Record<string, unknown> = {}): Record<string, { value: unknown }> {
  const r = stream(0, "fake-components", seed);
  const extraFonts = [...FONTS.office, ...FONTS.adobe, ...FONTS.cjk, ...FONTS.corel].filter(() => r() < 0.5);
  return browserComponents(
    "dell-latitude-5420",
    { extraFonts, taskbar: [30, 40, 50][Math.floor(r() * 3)] as number, ramGb: 16 },
    overrides,
  );
}

/**
 * Components of Safari on an iPhone: what every iPhone of the model reports alike (canvas and audio skipped, no
 * screen size), so no fingerprint of them is identifying. `overrides` replace component values.
 */
export function iphoneComponents(overrides: Record<string, unknown> = {}): Record<string, { value: unknown }> {
  return browserComponents(
    "iphone-15",
    { browser: "safari", version: 26, osBuild: "26.1", langs: ["fr-FR", "fr"], applePay: true },
    overrides,
  );
}

export const IPHONE_UA =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.1 Mobile/15E148 Safari/604.1";

/** A challenged client evaluation (a challenge policy matches `action`): its id, and the challenge link's id and token. */
export async function challengedEvaluation(
  t: TestApp,
  action: string,
  user: string,
  contact: { email?: string; phone?: string; url?: string } = { email: `${user}@example.com` },
): Promise<{ evaluation_id: string; id: string; token: string; headers: { "x-challenge-token": string } }> {
  const { url, ...contacts } = contact;
  const r = await t.app.inject({
    method: "POST",
    url: `/v3/client/evaluate/${action}`,
    payload: {
      client_id: t.clientId,
      user,
      ...contacts,
      signals: { components: fakeComponents(user), visitor_token: `tok-${user}-xxxxxxxx`, ...(url ? { url } : {}) },
    },
  });
  const { evaluation_id, redirect } = r.json() as { evaluation_id?: string; redirect?: string };
  if (r.statusCode !== 200 || !evaluation_id || !redirect) throw new Error(`${user} was not challenged: ${r.body}`);
  const link = new URL(redirect);
  const token = link.searchParams.get("token") ?? "";
  return { evaluation_id, id: link.searchParams.get("challenge") ?? "", token, headers: { "x-challenge-token": token } };
}

/** The user of a `user.converted` event a test emits itself (the payload must match the contract's schema). */
export function eventUser(id: string) {
  const at = new Date().toISOString();
  return { service_id: `usr_${id}`, id, metadata: {}, groups: [], createdAt: at, updatedAt: at };
}

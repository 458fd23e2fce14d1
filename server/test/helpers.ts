// Integration-test helpers: every store test runs against both stores (SQLite in a temp dir, a fresh PostgreSQL
// database per use), through the real Fastify app.

import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { FastifyInstance, InjectOptions } from "fastify";
import pg from "pg";
import { buildApp } from "../src/app.js";
import { type Config, loadConfig } from "../src/config.js";
import { createServices, type Services } from "../src/services.js";
import type { CreatedProject } from "../src/store/projects.js";

export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
export const PG_AVAILABLE = process.env.TESSERA_TEST_PG === "1";

export type StoreKind = "sqlite" | "postgres";
/** The stores to run each store test on: both, or SQLite alone when PostgreSQL is unreachable outside CI. */
export const STORES: StoreKind[] = PG_AVAILABLE ? ["sqlite", "postgres"] : ["sqlite"];

export interface TestDatabase {
  env: Record<string, string>;
  drop(): Promise<void>;
}

/** A fresh, empty store: a temp SQLite file, or a new PostgreSQL database dropped afterwards. */
export async function freshDatabase(kind: StoreKind): Promise<TestDatabase> {
  if (kind === "sqlite") {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tessera-test-"));
    return { env: { DATA_DIR: dir }, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `tessera_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
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
export const BROWSER_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36";

export async function startTestApp(kind: StoreKind, env: Record<string, string> = {}): Promise<TestApp> {
  const db = await freshDatabase(kind);
  const services = await createServices(testConfig({ ...db.env, ...env }));
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

/** Components like FingerprintJS produces, varied by `seed` so that distinct seeds are distinct browsers. */
export function fakeComponents(seed: string, overrides: Record<string, unknown> = {}): Record<string, { value: unknown }> {
  const base: Record<string, unknown> = {
    platform: "Linux x86_64",
    timezone: "Europe/Paris",
    languages: [["en-US", "en"]],
    screenResolution: [1920, 1080],
    hardwareConcurrency: 8,
    deviceMemory: 8,
    colorDepth: 24,
    vendor: "Google Inc.",
    canvas: { winding: true, geometry: `geo-${seed}`, text: `text-${seed}` },
    fonts: ["Arial", "Courier New", `Font-${seed}`],
    audio: 124.04347527516074,
    webGlBasics: { renderer: `ANGLE (${seed})`, vendor: "Google Inc." },
    ...overrides,
  };
  return Object.fromEntries(Object.entries(base).map(([k, v]) => [k, { value: v }]));
}

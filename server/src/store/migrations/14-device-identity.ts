// Migration 14 (docs/identity.md): device identity that holds on a real population.
// - fingerprints.popular: set once many tokens on many networks present a fingerprint (it stops linking accounts);
// - devices.previous_token: the token a device carried before a browser without its token was recognised as it (cleared
//   storage, a private window): either token keeps finding the device;
// - users.provisional: a user first seen on a login, until the customer's backend confirms it;
// - users.email_key: the normalised email an email-only evaluation identifies its account by (indexed);
// - login_attempts: logins naming provisional users, counted per device, fingerprint, IP and network;
// - every stored fingerprint's exact hash and coarse key recomputed: both now cover measured components only and
//   the coarse key names the GPU by its unmasked renderer, so an existing browser keeps matching exactly.
//
// Frozen: what it computes is copied below as it was when it shipped (fingerprint/index.ts, pipeline/account-email.ts
// and validator 13.15.35's normalizeEmail with the options account-email.ts passes), so a later change to the live
// code cannot change what this migration wrote, nor make a database migrated later differ from one migrated then.
import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import { seedPlannerStatistics } from "./007-sqlite-planner-hints.js";

// --- Fingerprints: the exact hash and the coarse key over the measured components (fingerprint/index.ts). The
// functions this migration computes with are exported for frozen.test.ts, which pins their answers. ---

/** JSON with object keys sorted; an array's hole writes nothing; undefined, functions and symbols write null. */
function stableStringify(v: unknown): string {
  if (Array.isArray(v)) {
    let out = "[";
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out += ",";
      if (i in v) out += stableStringify(v[i]);
    }
    return `${out}]`;
  }
  if (v !== null && typeof v === "object") {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o).sort();
    let out = "{";
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as string;
      if (i > 0) out += ",";
      out += `${JSON.stringify(k)}:${stableStringify(o[k])}`;
    }
    return `${out}}`;
  }
  return JSON.stringify(v) ?? "null";
}

const sha256 = (s: string): string => createHash("sha256").update(s).digest("hex");

const CANVAS_MARKERS = new Set(["skipped", "unsupported", "unstable"]);
const BRAVE_FARBLED = ["canvas", "audio", "hardwareConcurrency", "deviceMemory", "plugins"] as const;

function isBrave(n: Record<string, unknown>): boolean {
  const uad = n.userAgentData;
  if (!uad || typeof uad !== "object") return false;
  const brands = (uad as Record<string, unknown>).brands;
  return Array.isArray(brands) && brands.includes("Brave");
}

function unmeasured(key: string, v: unknown): boolean {
  switch (key) {
    case "canvas": {
      if (!v || typeof v !== "object") return true;
      const c = v as Record<string, unknown>;
      const marked = (x: unknown) => typeof x === "string" && CANVAS_MARKERS.has(x);
      return marked(c.geometry) || marked(c.text);
    }
    case "audio":
    case "audioBaseLatency":
    case "applePay":
      return typeof v !== "number" || v < 0;
    case "dateTimeLocale":
      return typeof v !== "string";
    case "webGlBasics":
    case "webGlExtensions":
      return !v || typeof v !== "object";
    case "screenResolution":
    case "screenFrame":
      return !Array.isArray(v) || !v.some((x) => typeof x === "number");
    default:
      return false;
  }
}

export function measuredComponents(n: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const brave = isBrave(n);
  for (const key in n) {
    const v = n[key];
    if (v === undefined || unmeasured(key, v)) continue;
    if (brave && (BRAVE_FARBLED as readonly string[]).includes(key)) continue;
    out[key] = v;
  }
  return out;
}

export const exactHash = (normalised: Record<string, unknown>): string => sha256(stableStringify(measuredComponents(normalised)));

const COARSE = ["uaFamily", "platform", "hardwareConcurrency", "deviceMemory", "colorDepth", "vendor", "architecture", "touchSupport"];

function gpuOf(n: Record<string, unknown>): unknown {
  const gl = n.webGlBasics;
  if (!gl || typeof gl !== "object") return null;
  const g = gl as Record<string, unknown>;
  return (typeof g.rendererUnmasked === "string" && g.rendererUnmasked) || g.renderer || null;
}

export function coarseKey(measured: Record<string, unknown>): string {
  const values: unknown[] = COARSE.map((k) => measured[k] ?? null);
  values.push(gpuOf(measured));
  return sha256(stableStringify(values)).slice(0, 24);
}

// --- Emails: the account key (pipeline/account-email.ts, through validator's normalizeEmail). ---

const ICLOUD = ["icloud.com", "me.com"];
const OUTLOOK = [
  "hotmail.at",
  "hotmail.be",
  "hotmail.ca",
  "hotmail.cl",
  "hotmail.co.il",
  "hotmail.co.nz",
  "hotmail.co.th",
  "hotmail.co.uk",
  "hotmail.com",
  "hotmail.com.ar",
  "hotmail.com.au",
  "hotmail.com.br",
  "hotmail.com.gr",
  "hotmail.com.mx",
  "hotmail.com.pe",
  "hotmail.com.tr",
  "hotmail.com.vn",
  "hotmail.cz",
  "hotmail.de",
  "hotmail.dk",
  "hotmail.es",
  "hotmail.fr",
  "hotmail.hu",
  "hotmail.id",
  "hotmail.ie",
  "hotmail.in",
  "hotmail.it",
  "hotmail.jp",
  "hotmail.kr",
  "hotmail.lv",
  "hotmail.my",
  "hotmail.ph",
  "hotmail.pt",
  "hotmail.sa",
  "hotmail.sg",
  "hotmail.sk",
  "live.be",
  "live.co.uk",
  "live.com",
  "live.com.ar",
  "live.com.mx",
  "live.de",
  "live.es",
  "live.eu",
  "live.fr",
  "live.it",
  "live.nl",
  "msn.com",
  "outlook.at",
  "outlook.be",
  "outlook.cl",
  "outlook.co.il",
  "outlook.co.nz",
  "outlook.co.th",
  "outlook.com",
  "outlook.com.ar",
  "outlook.com.au",
  "outlook.com.br",
  "outlook.com.gr",
  "outlook.com.pe",
  "outlook.com.tr",
  "outlook.com.vn",
  "outlook.cz",
  "outlook.de",
  "outlook.dk",
  "outlook.es",
  "outlook.fr",
  "outlook.hu",
  "outlook.id",
  "outlook.ie",
  "outlook.in",
  "outlook.it",
  "outlook.jp",
  "outlook.kr",
  "outlook.lv",
  "outlook.my",
  "outlook.ph",
  "outlook.pt",
  "outlook.sa",
  "outlook.sg",
  "outlook.sk",
  "passport.com",
];
const YAHOO = ["rocketmail.com", "yahoo.ca", "yahoo.co.uk", "yahoo.com", "yahoo.de", "yahoo.fr", "yahoo.in", "yahoo.it", "ymail.com"];
const YANDEX = ["yandex.ru", "yandex.ua", "yandex.kz", "yandex.com", "yandex.by", "ya.ru"];

/** normalizeEmail of a lower-cased address with every option on; false for an empty local part. */
function normalizeEmail(email: string): string | false {
  const parts = email.split("@");
  let domain = (parts.pop() as string).toLowerCase();
  let user = parts.join("@");
  if (domain === "gmail.com" || domain === "googlemail.com") {
    // Single dots go; a run of dots stays.
    user = (user.split("+")[0] as string).replace(/\.+/g, (m) => (m.length > 1 ? m : ""));
    if (!user.length) return false;
    domain = "gmail.com";
  } else if (ICLOUD.includes(domain) || OUTLOOK.includes(domain)) {
    user = user.split("+")[0] as string;
    if (!user.length) return false;
  } else if (YAHOO.includes(domain)) {
    const components = user.split("-");
    user = components.length > 1 ? components.slice(0, -1).join("-") : (components[0] as string);
    if (!user.length) return false;
  } else if (YANDEX.includes(domain)) {
    domain = "yandex.ru";
  }
  return `${user.toLowerCase()}@${domain}`;
}

/** The account key of an email address; an address without a local part and a domain is keyed by its trimmed lower case. */
export function accountEmailKey(email: string): string {
  const trimmed = email.trim().toLowerCase();
  if (trimmed.indexOf("@") <= 0) return trimmed;
  return normalizeEmail(trimmed) || trimmed;
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run before (and regardless of) the typed schema.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("fingerprints")
    .addColumn("popular", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("devices").addColumn("previous_token", "text").execute();
  await db.schema.createIndex("devices_env_previous_token").on("devices").columns(["environment_id", "previous_token"]).execute();
  await db.schema
    .alterTable("users")
    .addColumn("provisional", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("users").addColumn("email_key", "text").execute();
  await db.schema.createIndex("users_env_email_key").on("users").columns(["environment_id", "email_key"]).execute();
  await db.schema.createIndex("users_provisional_created").on("users").columns(["provisional", "created_at"]).execute();
  await db.schema
    .createTable("login_attempts")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("environment_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("device_key", "text")
    .addColumn("fingerprint_id", "text")
    .addColumn("ip", "text")
    .addColumn("network", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  for (const column of ["device_key", "fingerprint_id", "ip", "network"] as const) {
    await db.schema
      .createIndex(`login_attempts_env_${column}_time`)
      .on("login_attempts")
      .columns(["environment_id", column, "created_at"])
      .execute();
  }
  await db.schema.createIndex("login_attempts_time").on("login_attempts").column("created_at").execute();

  // Recompute in batches by id: a large store is not read into memory at once.
  let after = "";
  for (;;) {
    const rows: Array<{ id: string; components: string }> = await db
      .selectFrom("fingerprints")
      .select(["id", "components"])
      .where("id", ">", after)
      .orderBy("id")
      .limit(500)
      .execute();
    if (rows.length === 0) break;
    for (const row of rows) {
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(row.components) as Record<string, unknown>;
      } catch {
        continue;
      }
      await db
        .updateTable("fingerprints")
        .set({ exact_hash: exactHash(parsed), coarse_key: coarseKey(measuredComponents(parsed)) })
        .where("id", "=", row.id)
        .execute();
    }
    after = (rows[rows.length - 1] as { id: string }).id;
  }
  after = "";
  for (;;) {
    const rows: Array<{ id: string; email: string }> = await db
      .selectFrom("users")
      .select(["id", "email"])
      .where("email", "is not", null)
      .where("id", ">", after)
      .orderBy("id")
      .limit(500)
      .execute();
    if (rows.length === 0) break;
    for (const row of rows)
      await db
        .updateTable("users")
        .set({ email_key: accountEmailKey(row.email) })
        .where("id", "=", row.id)
        .execute();
    after = (rows[rows.length - 1] as { id: string }).id;
  }
  await seedPlannerStatistics(db);
}

// biome-ignore lint/suspicious/noExplicitAny: as above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("login_attempts").ifExists().execute();
  await db.schema.dropIndex("users_provisional_created").ifExists().execute();
  await db.schema.dropIndex("users_env_email_key").ifExists().execute();
  await db.schema.alterTable("users").dropColumn("email_key").execute();
  await db.schema.alterTable("users").dropColumn("provisional").execute();
  await db.schema.dropIndex("devices_env_previous_token").ifExists().execute();
  await db.schema.alterTable("devices").dropColumn("previous_token").execute();
  await db.schema.alterTable("fingerprints").dropColumn("popular").execute();
}

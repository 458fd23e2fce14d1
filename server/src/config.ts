// Configuration: every environment variable the server reads, parsed once by one zod schema (README lists them).
import fs from "node:fs";
import path from "node:path";
import ipaddr from "ipaddr.js";
import { z } from "zod";

/** A file the server reads at start: its absence is a bad setting, said at once, not a stack trace later. */
const existingFile = (what: string) =>
  z.string().refine((p) => fs.existsSync(p) && fs.statSync(p).isFile(), {
    error: (issue) => `no such file ${String(issue.input)}: point it at ${what}, or unset it`,
  });

/** proxy-addr's names for address ranges, accepted in TRUST_PROXY beside addresses and CIDRs. */
const PROXY_RANGES = new Set(["loopback", "linklocal", "uniquelocal"]);
function trustedProxy(entry: string): boolean {
  if (PROXY_RANGES.has(entry)) return true;
  try {
    if (entry.includes("/")) ipaddr.parseCIDR(entry);
    else ipaddr.parse(entry);
    return true;
  } catch {
    return false;
  }
}

const bool = z.enum(["1", "0", "true", "false", "yes", "no", ""]).transform((v) => v === "1" || v === "true" || v === "yes");

const ConfigSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().optional(),
  /** Public base URL of this server, used in challenge redirects and the SDK default base URL. */
  PUBLIC_URL: z.string().url().optional(),
  DATA_DIR: z.string().default("./data"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "DATABASE_URL must be a postgres:// URL")
    .optional(),
  /**
   * What an acknowledged write survives (store/db.ts): `process`, the server process crashing (SQLite
   * synchronous=NORMAL); `power`, also an operating-system crash or a power loss (SQLite synchronous=FULL: the WAL is
   * flushed at every commit; PostgreSQL: the start checks that fsync, full_page_writes and synchronous_commit are on).
   */
  DURABILITY: z.enum(["process", "power"]).default("process"),
  /** Pool size per instance for PostgreSQL. */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(16),
  /** PostgreSQL: opening a connection or waiting for a free one in the pool (store/db.ts). */
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5_000),
  /** PostgreSQL: one statement (server-side statement_timeout; the client gives a silent connection up 2 s later). */
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  /** PostgreSQL: an idle pooled connection is closed after this long. */
  DATABASE_IDLE_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(30_000),
  /** `1`/`true` trusts every proxy hop; otherwise a comma-separated list of trusted proxy addresses/CIDRs. */
  TRUST_PROXY: z
    .string()
    .refine((v) => v === "1" || v === "true" || v.split(",").every((e) => trustedProxy(e.trim())), {
      error: (issue) =>
        `"${String(issue.input)}" is not 1, true or a comma-separated list of proxy addresses or CIDRs (e.g. 10.0.0.0/8,192.0.2.7)`,
    })
    .optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** Largest request body accepted, in bytes; larger answers 413. */
  BODY_LIMIT: z.coerce
    .number()
    .int()
    .min(1024)
    .max(50 * 1024 * 1024)
    .default(256 * 1024),
  /**
   * The server's master key (secrets.ts): keys code hashes and seals identity secrets. Generated and kept in the store
   * when unset; set it in production so that a copy of the database alone reveals neither.
   */
  SERVER_KEY: z.string().min(32).optional(),
  /** Secret for signing challenge tokens; generated and kept in the store when unset. */
  CHALLENGE_TOKEN_SECRET: z.string().min(32).optional(),
  /** How long a challenge link stays valid, in seconds. */
  CHALLENGE_TOKEN_TTL: z.coerce
    .number()
    .int()
    .min(60)
    .max(7 * 24 * 3600)
    .default(3600),
  SMTP_URL: z
    .string()
    .refine((v) => /^smtps?:\/\/[^/\s]+/.test(v), {
      message: "must be smtp://[user:pass@]host[:port] or smtps://… (e.g. smtps://user:pass@smtp.example.com:465)",
    })
    .optional(),
  EMAIL_FROM: z.string().default("Tessera <no-reply@tessera.local>"),
  SMS_PROVIDER: z.enum(["twilio", "http"]).optional(),
  SMS_API_URL: z.string().url().optional(),
  SMS_ACCOUNT_SID: z.string().optional(),
  SMS_AUTH_TOKEN: z.string().optional(),
  SMS_FROM: z.string().optional(),
  /** Optional customer-supplied MaxMind-format databases; shipped offline data is used otherwise. */
  GEOIP_CITY_DB: existingFile("a MaxMind-format city database (.mmdb)").optional(),
  GEOIP_ASN_DB: existingFile("a MaxMind-format ASN database (.mmdb)").optional(),
  TOR_EXIT_LIST: existingFile("a file of Tor exit addresses, one per line").optional(),
  /** File with extra datacenter/VPN/proxy ASNs or CIDRs, one per line with a kind (see README). */
  NETWORK_LIST: existingFile("a network list (server/data/README.md)").optional(),
  /** Policies, lists and webhook endpoints loaded at start (JSON). */
  CONFIG_FILE: existingFile("a JSON file of policies, lists and webhook endpoints").optional(),
  RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  /** First webhook retry delay; each next one is 4× longer (capped at 2400× this), with jitter: 15 s gives ~1 day over 9 attempts. */
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(1).max(3_600_000).default(15_000),
  /** Attempts per delivery before it is failed; an endpoint failing every attempt of a delivery is disabled. */
  WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(9),
  /** How often the webhook worker looks for due deliveries. */
  WEBHOOK_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  /** Production only: let webhook URLs reach loopback, private and link-local addresses (receivers inside the network). */
  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  /** Timeout of one webhook POST. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Bearer token for GET /metrics; without it /metrics answers direct loopback connections only (routes/metrics.ts). */
  METRICS_TOKEN: z.string().min(16, "METRICS_TOKEN must be at least 16 characters").optional(),
  /** /readyz fails when the embedded store's disk has less free space than this (writes would start failing). */
  READY_MIN_FREE_DISK_MB: z.coerce.number().int().min(0).max(10_000_000).default(64),
  /** Create a development project on first start when the store has none. */
  BOOTSTRAP_PROJECT: bool.default(true),
  /** Rate limit of the client API, requests per minute per IP. */
  CLIENT_RATE_LIMIT: z.coerce.number().int().min(1).default(600),
  /** Rate limit of the client API, requests per minute per client id (all IPs together; 500/s by default). */
  CLIENT_ID_RATE_LIMIT: z.coerce.number().int().min(1).default(30_000),
  /** Challenge operations (send, verify, kick…) per minute per client IP, all challenges together. */
  CHALLENGE_IP_RATE_LIMIT: z.coerce.number().int().min(1).default(120),
  /** How long a one-time challenge code stays valid, in ms (10 minutes; shorter only for tests; docs/challenges.md). */
  CHALLENGE_CODE_TTL_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(3_600_000)
    .default(10 * 60 * 1000),
  /** One-time codes sent to one email address or phone number per hour, all challenges and projects together. */
  CODE_SENDS_PER_RECIPIENT: z.coerce.number().int().min(1).default(5),
  /** One-time codes sent for one user per day, all channels and challenges together. */
  CODE_SENDS_PER_USER: z.coerce.number().int().min(1).default(10),
  /** Wrong codes entered for one user per hour, all challenges together; past it every verify answers 429. */
  WRONG_CODES_PER_USER: z.coerce.number().int().min(1).default(10),
  /**
   * How long one policy backtest may run (console/backtest.ts); past it, the answer covers the evaluations examined so
   * far and says `partial: true`. 5 s: 100,000 evaluations take 0.9 s on a quiet machine and about 8 s on a loaded one
   * (docs/console.md). 0 examines one slice only (tests).
   */
  BACKTEST_BUDGET_MS: z.coerce.number().int().min(0).max(600_000).default(5_000),
  /**
   * One-time codes asked for through challenge links from one client IP (an IPv6 client: its /64) per hour, all users
   * and projects together (secret-key sends are the backend's, not counted). 20: an office or a school behind one
   * address rarely has more than a handful of people challenged within an hour, while a script signing up accounts
   * from one address got thousands of codes an hour without it.
   */
  CODE_SENDS_PER_IP: z.coerce.number().int().min(1).default(20),
  /**
   * One-time codes one project sends per hour, all environments, users and addresses together: the most a pumping
   * attack spread over many addresses can cost (1000 texts at a few cents each), well above what a service challenging
   * a few percent of half a million logins a day sends. Raise it with the project's traffic.
   */
  CODE_SENDS_PER_PROJECT: z.coerce.number().int().min(1).default(1000),
  /** A request must arrive whole within this time (slow clients are cut off, answered 408). */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(50).max(600_000).default(30_000),
  /** A connection silent for this long is closed. */
  CONNECTION_TIMEOUT_MS: z.coerce.number().int().min(50).max(600_000).default(60_000),
  /** Run the background workers (webhook delivery, retention) in this process. */
  WORKERS: bool.default(true),
  /**
   * How much the JS heap may grow past what is live before V8 collects it, in percent (see server.ts); 0 leaves V8's
   * own choice (up to 300 %: faster, but RSS swings by 100 MiB under load).
   */
  HEAP_GROWING_PERCENT: z.coerce.number().int().min(0).max(1000).default(60),
});

export type Config = z.infer<typeof ConfigSchema> & {
  isDev: boolean;
  host: string;
  publicUrl: string;
  sqlitePath: string;
};

export class ConfigError extends Error {}

/**
 * What a production server started without these settings does not do, one line each (said at start, server.ts):
 * each has a default that serves development, so a production start is not refused without it, and nothing else
 * would tell the operator what was lost.
 */
export function productionWarnings(config: Config): string[] {
  if (config.isDev) return [];
  const lines: string[] = [];
  if (!config.SERVER_KEY)
    lines.push(
      "SERVER_KEY is not set: the master key that keys one-time code hashes and seals identity secrets is kept in the database, so a copy of the database reveals both. Set SERVER_KEY to 32 or more random characters kept outside the database (openssl rand -base64 48); setting it later voids codes in flight and identity secrets (rotate them: tessera keys identity-secret)",
    );
  if (!config.PUBLIC_URL)
    lines.push(
      `PUBLIC_URL is not set: challenge links, console sign-in links, SMS delivery callbacks and the WebOTP line of texts name ${config.publicUrl}, which your users and providers cannot reach. Set PUBLIC_URL to this server's public address, e.g. PUBLIC_URL=https://tessera.example.com`,
    );
  if (!config.SMTP_URL)
    lines.push(
      "SMTP_URL is not set: no one-time code can be sent by email (each email send fails with delivery_failed) and no shared-account alert reaches the admin email. Set SMTP_URL to your mail server, e.g. SMTP_URL=smtps://user:pass@smtp.example.com:465",
    );
  return lines;
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    // One line per bad setting, naming it and what to do.
    const lines = parsed.error.issues.map((i) => `Invalid setting ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(lines.join("\n"));
  }
  const c = parsed.data;
  const isDev = c.NODE_ENV !== "production";
  const host = c.HOST ?? (isDev ? "127.0.0.1" : "0.0.0.0");
  const publicUrl = (c.PUBLIC_URL ?? `http://${host === "0.0.0.0" || host === "127.0.0.1" ? "localhost" : host}:${c.PORT}`).replace(
    /\/$/,
    "",
  );
  return { ...c, isDev, host, publicUrl, sqlitePath: path.resolve(c.DATA_DIR, "tessera.db") };
}

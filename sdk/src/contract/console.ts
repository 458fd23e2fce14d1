// What the console (docs/console.md) and scripts read and send beyond the core resources: evaluation search with cursor
// pages, users and their timeline, evaluation statistics, policy backtests, the audit log, operators and sessions,
// environment settings and keys. The server answers these on /v3 to a secret key and to a console session alike.
import * as z from "zod/mini";
import { Challenge } from "./challenge.js";
import { Timestamp } from "./common.js";
import { Device } from "./device.js";
import { Evaluation } from "./evaluation.js";
import { Environment, PolicyCreateRequest, Verdict } from "./policy.js";
import { Group, IdentityVerificationMode } from "./user.js";

const bounded = (max: number) => z.string().check(z.minLength(1), z.maxLength(max));
/** A point in time as a query parameter: an ISO 8601 date-time. */
const TimeParam = z.iso.datetime({ offset: true });

export const CursorLimit = z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(100)), 20);

/** Filters of GET /v3/evaluations; every one optional, combined with AND. */
export const EvaluationListQuery = z.object({
  /** The customer's user id. */
  user: z.optional(bounded(256)),
  email: z.optional(bounded(320)),
  device: z.optional(bounded(200)),
  ip: z.optional(z.union([z.ipv4(), z.ipv6()])),
  verdict: z.optional(Verdict),
  action: z.optional(bounded(64)),
  from: z.optional(TimeParam),
  to: z.optional(TimeParam),
  limit: CursorLimit,
  /** next_cursor of the previous page. */
  cursor: z.optional(bounded(200)),
});
export type EvaluationListQuery = z.infer<typeof EvaluationListQuery>;

export function CursorPage<T extends z.ZodMiniType>(item: T) {
  return z.object({ data: z.array(item), next_cursor: z.nullable(z.string()) });
}
export const EvaluationPage = CursorPage(Evaluation);
export type EvaluationPage = z.infer<typeof EvaluationPage>;

export const UserSummary = z.object({
  service_id: z.string(),
  id: z.string(),
  email: z.optional(z.string()),
  phone: z.optional(z.string()),
  email_verified: z.boolean(),
  phone_verified: z.boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type UserSummary = z.infer<typeof UserSummary>;

export const UserSearchQuery = z.object({
  /** A user id, service id, email or phone; or the start of a user id or email. */
  query: z.optional(z.string().check(z.maxLength(320))),
  limit: CursorLimit,
});
export const UserSearchResult = z.object({ data: z.array(UserSummary) });

export const ListMembership = z.object({ list: z.string(), value: z.string(), check: z.string() });

/** A user's timeline: the user, their devices, their latest evaluations and challenges, the lists holding them. */
export const UserDetail = z.object({
  ...UserSummary.shape,
  metadata: z.record(z.string(), z.unknown()),
  groups: z.array(Group),
  devices: z.array(Device),
  evaluations: z.array(Evaluation),
  challenges: z.array(Challenge),
  lists: z.array(ListMembership),
});
export type UserDetail = z.infer<typeof UserDetail>;

export const STATS_INTERVALS = ["hour", "day"] as const;
export const StatsQuery = z.object({
  from: z.optional(TimeParam),
  to: z.optional(TimeParam),
  interval: z._default(z.enum(STATS_INTERVALS), "day"),
});

const VerdictCounts = z.record(z.string(), z.number());
export const EvaluationStats = z.object({
  from: Timestamp,
  to: Timestamp,
  interval: z.enum(STATS_INTERVALS),
  total: z.number(),
  verdicts: VerdictCounts,
  buckets: z.array(z.object({ start: Timestamp, total: z.number(), verdicts: VerdictCounts })),
  actions: z.array(z.object({ action: z.string(), total: z.number(), verdicts: VerdictCounts })),
  top_reasons: z.array(z.object({ reason: z.string(), count: z.number() })),
  challenges: z.object({ total: z.number(), statuses: z.record(z.string(), z.number()), types: z.record(z.string(), z.number()) }),
});
export type EvaluationStats = z.infer<typeof EvaluationStats>;

/** The draft: a new policy, or `id` to replace a stored one for the run. */
export const BacktestRequest = z.object({
  policy: z.object({ ...PolicyCreateRequest.shape, id: z.optional(bounded(200)) }),
  from: z.optional(TimeParam),
  to: z.optional(TimeParam),
  /** Evaluations looked at, newest first (the bench measures 100,000). */
  limit: z._default(z.number().check(z.int(), z.minimum(1), z.maximum(200_000)), 100_000),
  examples: z._default(z.number().check(z.int(), z.minimum(0), z.maximum(100)), 20),
});
export type BacktestRequest = z.infer<typeof BacktestRequest>;

export const BacktestResult = z.object({
  from: Timestamp,
  to: Timestamp,
  /** Evaluations examined. */
  evaluated: z.number(),
  /** Evaluations the draft's conditions (and actions) match. */
  matched: z.number(),
  /** Evaluations whose verdict differs with the draft from the verdict of the current policies. */
  changed: z.number(),
  /** Evaluations whose stored verdict the current policies no longer give (policies changed since). */
  differs_from_stored: z.number(),
  transitions: z.array(z.object({ from: Verdict, to: Verdict, count: z.number() })),
  examples: z.array(
    z.object({
      evaluation: z.string(),
      createdAt: Timestamp,
      action: z.string(),
      user: z.optional(z.string()),
      stored: Verdict,
      current: Verdict,
      draft: Verdict,
      reasons: z.array(z.string()),
    }),
  ),
  /** true when `limit` stopped the run before the start of the period. */
  truncated: z.boolean(),
  /**
   * true when the server's time budget (BACKTEST_BUDGET_MS) ran out first: the counts are over the `evaluated` newest
   * evaluations of the period only, back to `examined_from`. A shorter period, or a smaller `limit`, completes.
   */
  partial: z.boolean(),
  /** With `partial`: the time of the oldest evaluation examined (the run covered `examined_from`–`to`). */
  examined_from: z.optional(Timestamp),
});
export type BacktestResult = z.infer<typeof BacktestResult>;

export const AuditLogQuery = z.object({
  actor: z.optional(bounded(320)),
  action: z.optional(bounded(100)),
  target: z.optional(bounded(200)),
  from: z.optional(TimeParam),
  to: z.optional(TimeParam),
  limit: CursorLimit,
  cursor: z.optional(bounded(200)),
});

export const AuditEntry = z.object({
  id: z.string(),
  actor: z.object({ type: z.enum(["operator", "key", "cli"]), id: z.optional(z.string()), label: z.string() }),
  action: z.string(),
  environment: z.optional(z.string()),
  target: z.optional(z.object({ type: z.string(), id: z.optional(z.string()) })),
  before: z.optional(z.unknown()),
  after: z.optional(z.unknown()),
  /** The HTTP status answered; absent if the server stopped while the change was under way. */
  status: z.optional(z.number()),
  ip: z.optional(z.string()),
  createdAt: Timestamp,
});
export type AuditEntry = z.infer<typeof AuditEntry>;
export const AuditLogPage = CursorPage(AuditEntry);

export const ROLES = ["owner", "analyst", "viewer"] as const;
export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

export const SignInRequest = z.object({ email: bounded(320), password: bounded(1024) });
/** A one-time sign-in link's token and the password the operator chooses with it. */
export const LinkSignInRequest = z.object({ token: bounded(200), password: z.string().check(z.minLength(12), z.maxLength(1024)) });

export const ConsoleEnvironment = z.object({ id: z.string(), name: Environment });
export const ConsoleProject = z.object({ id: z.string(), name: z.string(), role: Role, environments: z.array(ConsoleEnvironment) });
export type ConsoleProject = z.infer<typeof ConsoleProject>;
export const ConsoleSession = z.object({
  operator: z.object({ id: z.string(), email: z.string() }),
  projects: z.array(ConsoleProject),
});
export type ConsoleSession = z.infer<typeof ConsoleSession>;
/** POST /console/api/sign-out: the session of the cookie sent, if any, is over. */
export const ConsoleSignOut = z.object({ signed_out: z.literal(true) });

/** An environment's settings as the console shows them; the branding and limits are the project's. */
export const EnvironmentSettings = z.object({
  environment: ConsoleEnvironment,
  project: z.object({ id: z.string(), name: z.string() }),
  client_id: z.string(),
  allowed_origins: z.array(z.string()),
  logo_url: z.optional(z.string()),
  color: z.optional(z.string()),
  default_device_limit: z.number(),
  admin_email: z.optional(z.string()),
  identity_verification: IdentityVerificationMode,
  /** The countries (ISO 3166 alpha-2) the environment sends texts to; absent: every country. */
  sms_countries: z.optional(z.array(z.string())),
});
export type EnvironmentSettings = z.infer<typeof EnvironmentSettings>;

/** A country as ISO 3166 alpha-2 (FR, BE); the server also checks that phone numbers exist there. */
const CountryCode = z.string().check(z.regex(/^[A-Za-z]{2}$/, "a country is its two-letter ISO 3166 code, e.g. FR"));

export const EnvironmentSettingsPatch = z.object({
  allowed_origins: z.optional(z.array(z.string().check(z.maxLength(300))).check(z.maxLength(100))),
  logo_url: z.optional(
    z.nullable(
      z.string().check(z.maxLength(100_000), z.regex(/^(https:\/\/|data:image\/)/, "logo_url must be an https: or data:image/ URL")),
    ),
  ),
  color: z.optional(z.nullable(z.string().check(z.regex(/^#([0-9a-f]{3}|[0-9a-f]{6})$/i, "color must be #rgb or #rrggbb")))),
  default_device_limit: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(100))),
  admin_email: z.optional(
    z.nullable(z.string().check(z.maxLength(320), z.regex(/^[^@\s]+@[^@\s]+\.[^@\s]+$/, "admin_email must be an email address"))),
  ),
  identity_verification: z.optional(IdentityVerificationMode),
  /** The countries texts may go to (at least one); null: every country again. */
  sms_countries: z.optional(z.nullable(z.array(CountryCode).check(z.minLength(1), z.maxLength(250)))),
});
export type EnvironmentSettingsPatch = z.infer<typeof EnvironmentSettingsPatch>;

export const ApiKeySummary = z.object({
  id: z.string(),
  prefix: z.string(),
  environment: Environment,
  /** What the key is for (`tessera keys create --label`). */
  label: z.optional(z.string()),
  createdAt: Timestamp,
  revoked_at: z.optional(Timestamp),
  /** When the key last authenticated a request, to the minute; absent when it has not been used. */
  last_used_at: z.optional(Timestamp),
  /** Present only in the answer that created the key. */
  secret: z.optional(z.string()),
});
export const ApiKeyList = z.object({ data: z.array(ApiKeySummary) });
/** POST /v3/keys: what the new key is for, shown beside it in the console and in `tessera keys list`. */
export const ApiKeyCreateRequest = z.object({
  label: z.optional(
    z.string().check(z.minLength(1), z.maxLength(100), z.regex(/^[^\r\n]*$/, "label must be one line of 1-100 characters")),
  ),
});
export type ApiKeyCreateRequest = z.infer<typeof ApiKeyCreateRequest>;

export const ListSummary = z.object({ id: z.string(), entries: z.number(), updatedAt: Timestamp });
export type ListSummary = z.infer<typeof ListSummary>;
export const ListSummaries = z.object({ data: z.array(ListSummary) });

// All repositories over one store; the only way the rest of the server reaches the database.
import type { Kysely } from "kysely";
import { AccessRecordsRepo } from "./access-records.js";
import { AuditLogRepo } from "./audit-log.js";
import { ChallengesRepo } from "./challenges.js";
import type { Dialect, Store } from "./db.js";
import { DetectionRepo } from "./detection.js";
import { DevicesRepo } from "./devices.js";
import { EvaluationSearchRepo } from "./evaluation-search.js";
import { EvaluationStatsRepo } from "./evaluation-stats.js";
import { EvaluationsRepo } from "./evaluations.js";
import { FingerprintsRepo } from "./fingerprints.js";
import { HistoryRepo } from "./history.js";
import { IdentificationsRepo } from "./identifications.js";
import { JobsRepo } from "./jobs.js";
import { KeyLocks } from "./key-locks.js";
import { ListsRepo } from "./lists.js";
import { LoginAttemptsRepo } from "./login-attempts.js";
import { OperatorsRepo } from "./operators.js";
import { PoliciesRepo } from "./policies.js";
import { ProjectsRepo } from "./projects.js";
import { RetentionRepo } from "./retention.js";
import type { Database } from "./schema.js";
import { Transactions } from "./transactions.js";
import { UserDataRepo } from "./user-data.js";
import { UserLists } from "./user-lists.js";
import { UserSearchRepo } from "./user-search.js";
import { UsersRepo } from "./users.js";
import { WebhooksRepo } from "./webhooks.js";

export interface Repos {
  /** Where a query runs now: the open transaction of this async context, else the store (store/transactions.ts). */
  readonly db: Kysely<Database>;
  /** Runs `fn` in a transaction that every repository call inside it joins (store/transactions.ts). */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /** Runs `fn` outside the current transaction: work that outlives it (Transactions.outside). */
  outside<T>(fn: () => T): T;
  /** Calls `f` once the current transaction has committed (Transactions.afterCommit). */
  afterCommit(f: () => void): void;
  dialect: Dialect;
  /** Resolves once every write so far is committed: await it before telling the outside world (Store.durable). */
  durable(): Promise<void>;
  /** Serialises the work that shares a key: the evaluations of one browser, network or account (store/key-locks.ts). */
  keyLocks: KeyLocks;
  projects: ProjectsRepo;
  users: UsersRepo;
  fingerprints: FingerprintsRepo;
  devices: DevicesRepo;
  evaluations: EvaluationsRepo;
  challenges: ChallengesRepo;
  webhooks: WebhooksRepo;
  identifications: IdentificationsRepo;
  accessRecords: AccessRecordsRepo;
  userData: UserDataRepo;
  policies: PoliciesRepo;
  lists: ListsRepo;
  history: HistoryRepo;
  loginAttempts: LoginAttemptsRepo;
  /** Fingerprint churn and a fingerprint's latest places (facts/churn.ts, facts/places.ts). */
  detection: DetectionRepo;
  /** The console (docs/console.md): operators and sessions, the audit log, searches and statistics. */
  operators: OperatorsRepo;
  auditLog: AuditLogRepo;
  evaluationSearch: EvaluationSearchRepo;
  evaluationStats: EvaluationStatsRepo;
  userSearch: UserSearchRepo;
  /** The job outbox: side effects run after the response (jobs/outbox.ts). */
  jobs: JobsRepo;
  /** Retention of what grows with traffic, beyond the prunes of each repository (domain/privacy.ts). */
  retention: RetentionRepo;
}

/**
 * What the repositories are told of the domain rather than knowing it: the store indexes users by their email's
 * account key (users.email_key), which the identity rules define (services.ts passes pipeline/account-email.ts's).
 */
export interface StoreRules {
  accountEmailKey: (email: string) => string;
}

export function createRepos(store: Store, rules: StoreRules): Repos {
  const db = new Transactions(store.db);
  // One per store: the history's and the fingerprints' reads of an evaluation are sent together (store/user-lists.ts).
  const lists = new UserLists(db, store.dialect);
  return {
    get db() {
      return db.db;
    },
    transaction: (fn) => db.run(fn),
    outside: (fn) => db.outside(fn),
    afterCommit: (f) => db.afterCommit(f),
    dialect: store.dialect,
    durable: () => store.durable(),
    keyLocks: new KeyLocks(store.advisory),
    projects: new ProjectsRepo(db),
    users: new UsersRepo(db, store.dialect, rules.accountEmailKey),
    fingerprints: new FingerprintsRepo(db, lists, store.dialect),
    devices: new DevicesRepo(db, store.dialect),
    evaluations: new EvaluationsRepo(db),
    challenges: new ChallengesRepo(db),
    webhooks: new WebhooksRepo(db, store.dialect),
    identifications: new IdentificationsRepo(db),
    accessRecords: new AccessRecordsRepo(db),
    userData: new UserDataRepo(db),
    policies: new PoliciesRepo(db),
    lists: new ListsRepo(db),
    history: new HistoryRepo(db, store.dialect, lists),
    loginAttempts: new LoginAttemptsRepo(db),
    detection: new DetectionRepo(db, store.dialect),
    operators: new OperatorsRepo(db),
    auditLog: new AuditLogRepo(db),
    evaluationSearch: new EvaluationSearchRepo(db, store.dialect),
    evaluationStats: new EvaluationStatsRepo(db),
    userSearch: new UserSearchRepo(db),
    jobs: new JobsRepo(db, store.dialect),
    retention: new RetentionRepo(db),
  };
}

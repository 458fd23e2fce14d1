// The familiarity ledger (migration 30): what each user was let in with, one row per dimension and value (an address,
// a network, a country, a provider's ASN, a time zone, a language, …). An evaluation carries the values it would make
// familiar (`evaluations.familiar`, by dimension); they enter the ledger when it becomes trusted (recordFamiliar, from
// store/history.ts's trust: at its insert, its consume, its challenge's verify). The checks ask it in the history's
// statement of numbers (familiarColumns, HistoryRepo.scalars): has the user a row with this value, any row of these
// dimensions? Each question is a probe of the primary key (environment, user, dimension, value).
// A row lives as long as the trusted evaluations that put it there: erasing the user deletes it, and retention deletes
// it once the latest of them is older than the retention period (UserDataRepo.pruneBefore), as it deletes them.
import type { ExpressionBuilder, Kysely } from "kysely";
import { BoundedMap } from "../caches.js";
import { type Prepared, prepared } from "./prepared.js";
import type { Database } from "./schema.js";

/**
 * One question to the ledger: has the user a row with one of these (dimension, value) pairs (`seen`), and a row of any
 * of these dimensions at all (`any`)?
 */
export interface FamiliarQuestion {
  pairs: ReadonlyArray<readonly [dimension: string, value: string]>;
}

export interface Familiar {
  seen: boolean;
  any: boolean;
}

/** The values of one evaluation, by dimension, as `evaluations.familiar` stores them. */
export type FamiliarValues = Record<string, string>;

/** Scalar subqueries `fam<i>_seen` and `fam<i>_any` of each question, with `questions[i]` pairs (slots familiarParams names). */
export function familiarColumns(eb: ExpressionBuilder<Database, never>, p: Record<string, unknown>, questions: readonly number[]) {
  const own = () =>
    eb
      .selectFrom("familiarity")
      .select("familiarity.value")
      .where("familiarity.environment_id", "=", p.env as string)
      .where("familiarity.user_id", "=", p.fam_user as string);
  return questions.flatMap((n, i) => {
    const pairs = Array.from({ length: n }, (_, j) => [p[`fam${i}_d${j}`] as string, p[`fam${i}_v${j}`] as string] as const);
    return [
      eb
        .exists(
          own().where((e) => e.or(pairs.map(([d, v]) => e.and([e("familiarity.dimension", "=", d), e("familiarity.value", "=", v)])))),
        )
        .as(`fam${i}_seen`),
      eb
        .exists(
          own().where(
            "familiarity.dimension",
            "in",
            pairs.map(([d]) => d),
          ),
        )
        .as(`fam${i}_any`),
    ];
  });
}

/** The values of the slots familiarColumns reads, for the user's questions. */
export function familiarParams(user: string, questions: readonly FamiliarQuestion[]): Record<string, string> {
  const out: Record<string, string> = { fam_user: user };
  for (const [i, q] of questions.entries())
    for (const [j, [d, v]] of q.pairs.entries()) {
      out[`fam${i}_d${j}`] = d;
      out[`fam${i}_v${j}`] = v;
    }
  return out;
}

/** The answers of familiarColumns' columns in a row, in the order of the questions. */
export function familiarAnswers(row: Record<string, unknown>, count: number): Familiar[] {
  const yes = (v: unknown) => v === true || Number(v) > 0;
  return Array.from({ length: count }, (_, i) => ({ seen: yes(row[`fam${i}_seen`]), any: yes(row[`fam${i}_any`]) }));
}

/** One upsert per number of rows: a new value is inserted, a known one gets its first and last times widened. */
const upserts = new Map<number, Prepared<Record<string, unknown>, unknown>>();

function upsertOf(n: number): Prepared<Record<string, unknown>, unknown> {
  let q = upserts.get(n);
  if (!q) {
    q = prepared((db, p: Record<string, unknown>) =>
      db
        .insertInto("familiarity")
        .values(
          Array.from({ length: n }, (_, i) => ({
            environment_id: p.env as string,
            user_id: p.user as string,
            dimension: p[`d${i}`] as string,
            value: p[`v${i}`] as string,
            first_seen: p.at as number,
            last_seen: p.at as number,
          })),
        )
        .onConflict((oc) =>
          oc
            .columns(["environment_id", "user_id", "dimension", "value"])
            .doUpdateSet((eb) => ({
              first_seen: eb
                .case()
                .when("excluded.first_seen", "<", eb.ref("familiarity.first_seen"))
                .then(eb.ref("excluded.first_seen"))
                .else(eb.ref("familiarity.first_seen"))
                .end(),
              last_seen: eb
                .case()
                .when("excluded.last_seen", ">", eb.ref("familiarity.last_seen"))
                .then(eb.ref("excluded.last_seen"))
                .else(eb.ref("familiarity.last_seen"))
                .end(),
            }))
            // An evaluation confirmed late (a consume, a verify) may be neither: then nothing is written.
            .where((eb) =>
              eb.or([
                eb("familiarity.last_seen", "<", eb.ref("excluded.last_seen")),
                eb("familiarity.first_seen", ">", eb.ref("excluded.first_seen")),
              ]),
            ),
        ),
    );
    upserts.set(n, q);
  }
  return q;
}

/** The values of `evaluations.familiar` worth a row: strings only (rows filled by migration 30 hold nulls). */
function valuesOf(json: string | null): Array<[string, string]> {
  if (!json) return [];
  const out: Array<[string, string]> = [];
  for (const [d, v] of Object.entries(JSON.parse(json) as Record<string, unknown>)) if (typeof v === "string" && v) out.push([d, v]);
  return out;
}

/** A trusted evaluation's values enter the user's ledger, at the evaluation's own time. */
export async function recordFamiliar(
  db: Kysely<Database>,
  row: { environment_id: string; user_id: string | null; familiar: string | null; created_at: number },
): Promise<void> {
  const values = row.user_id ? valuesOf(row.familiar) : [];
  if (values.length === 0) return;
  const p: Record<string, unknown> = { env: row.environment_id, user: row.user_id, at: Number(row.created_at) };
  for (const [i, [d, v]] of values.entries()) {
    p[`d${i}`] = d;
    p[`v${i}`] = v;
  }
  await upsertOf(values.length).queue(db, p);
}

/**
 * How long a repeat page view of a browser the user signed in on may leave the ledger as its user's last trusted
 * evaluation there left it (store/evaluations.ts, trustAtInsert): its values are the rows that evaluation wrote, and
 * all the view would change is their `last_seen`, which only retention reads (pruneFamiliarity; a retention period is
 * a day at least: config.ts). A view every few seconds writes its values once per period instead of on every page.
 */
export const SIGHTING_REFRESH_MS = 15 * 60 * 1000;
/** Users' values remembered at most (a busy instance's signed-in browsers of the last minutes); the oldest go first. */
const SIGHTINGS_KEPT = 50_000;

/**
 * The familiar values this process wrote to the ledger lately, by user: a repeat page view with the same values
 * within SIGHTING_REFRESH_MS of their write skips its upsert. It only ever skips a write whose rows are there (a new
 * value, another user, a lapse of time is written), so on PostgreSQL each instance keeping its own is as sound as one.
 * Kept per store (Repos), as a process may open several. Nothing needs forgetting: the rows of a user go only with
 * the user (an erasure, a provisional user's retention: its id never comes back) or once older than a retention
 * period.
 */
export class FamiliarSightings {
  readonly #written = new BoundedMap<string, { values: string; at: number }>(SIGHTINGS_KEPT);

  /** The user's values `familiar` were written at most SIGHTING_REFRESH_MS before `at`. */
  fresh(row: { environment_id: string; user_id: string | null; familiar: string | null; created_at: number }): boolean {
    if (!row.user_id || !row.familiar) return false;
    const seen = this.#written.get(`${row.environment_id}:${row.user_id}`);
    return (
      seen !== undefined && seen.values === row.familiar && row.created_at - seen.at < SIGHTING_REFRESH_MS && row.created_at >= seen.at
    );
  }

  /** The user's values `familiar` are in the ledger as of `created_at` (call once the write committed). */
  note(row: { environment_id: string; user_id: string | null; familiar: string | null; created_at: number }): void {
    if (!row.user_id || !row.familiar) return;
    const key = `${row.environment_id}:${row.user_id}`;
    // Deleted first, so values written anew count as the newest.
    this.#written.delete(key);
    this.#written.set(key, { values: row.familiar, at: row.created_at });
  }
}

/** Deletes the rows of these users of one environment (an erasure, provisional users retention forgets). */
export async function forgetFamiliarity(db: Kysely<Database>, environmentId: string, users: readonly string[]): Promise<void> {
  if (users.length === 0) return;
  await db.deleteFrom("familiarity").where("environment_id", "=", environmentId).where("user_id", "in", users).execute();
}

/**
 * Retention: the rows of these users whose latest trusted evaluation was created before `before` (retention deletes
 * those evaluations). Only users whose trusted evaluations retention deletes can have such rows, so the caller names
 * them and no scan of the ledger is needed.
 */
export async function pruneFamiliarity(
  db: Kysely<Database>,
  environmentId: string,
  users: readonly string[],
  before: number,
): Promise<number> {
  if (users.length === 0) return 0;
  const res = await db
    .deleteFrom("familiarity")
    .where("environment_id", "=", environmentId)
    .where("user_id", "in", users)
    .where("last_seen", "<", before)
    .executeTakeFirst();
  return Number(res.numDeletedRows ?? 0n);
}

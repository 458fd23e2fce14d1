// The familiarity ledger (migration 30): what each user was let in with, one row per dimension and value (an address,
// a network, a country, a provider's ASN, a time zone, a language, …). An evaluation carries the values it would make
// familiar (`evaluations.familiar`, by dimension); they enter the ledger when it becomes trusted (recordFamiliar, from
// store/history.ts's trust: at its insert, its consume, its challenge's verify). The checks ask it in the history's
// statement of numbers (familiarColumns, HistoryRepo.scalars): has the user a row with this value, any row of these
// dimensions? Each question is a probe of the primary key (environment, user, dimension, value).
// A row lives as long as the trusted evaluations that put it there: erasing the user deletes it, and retention deletes
// it once the latest of them is older than the retention period (UserDataRepo.pruneBefore), as it deletes them.
import type { ExpressionBuilder, Kysely } from "kysely";
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

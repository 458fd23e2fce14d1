import { ShortCache } from "../caches.js";
import { iso, now } from "../time.js";
import { Repository } from "./transactions.js";

/** Values are compared case-insensitively (emails, domains, countries); ids keep their case. */
export function normaliseListValue(v: string): string {
  const t = v.trim();
  return /[@.]/.test(t) || /^[a-z]{2}$/i.test(t) ? t.toLowerCase() : t;
}

/**
 * How long an instance trusts "this environment has no list entries" (most have none: the membership query is then
 * skipped). Changes made on the instance apply at once; made on another instance, within this delay.
 */
const EMPTY_CACHE_MS = 1000;

export class ListsRepo extends Repository {
  private readonly hasEntries = new ShortCache<boolean>(EMPTY_CACHE_MS);

  private anyEntries(environmentId: string): Promise<boolean> {
    return this.hasEntries.get(environmentId, async () => {
      const row = await this.db
        .selectFrom("list_entries")
        .select("list_id")
        .where("environment_id", "=", environmentId)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    });
  }

  async add(
    environmentId: string,
    listId: string,
    values: string[],
    opts: { comment?: string; ttlSeconds?: number } = {},
  ): Promise<{ added: number; updated: number; total: number }> {
    const t = now();
    const expires = opts.ttlSeconds ? t + opts.ttlSeconds * 1000 : null;
    const unique = [...new Set(values.map(normaliseListValue))];
    let added = 0;
    let updated = 0;
    await this.transactions.run(async () => {
      const existing = new Set(
        (
          await this.db
            .selectFrom("list_entries")
            .select("value")
            .where("environment_id", "=", environmentId)
            .where("list_id", "=", listId)
            .where("value", "in", unique)
            .execute()
        ).map((r) => r.value),
      );
      for (const value of unique) {
        if (existing.has(value)) {
          await this.db
            .updateTable("list_entries")
            .set({ comment: opts.comment ?? null, expires_at: expires, updated_at: t })
            .where("environment_id", "=", environmentId)
            .where("list_id", "=", listId)
            .where("value", "=", value)
            .execute();
          updated++;
        } else {
          await this.db
            .insertInto("list_entries")
            .values({
              environment_id: environmentId,
              list_id: listId,
              value,
              comment: opts.comment ?? null,
              expires_at: expires,
              created_at: t,
              updated_at: t,
            })
            .onConflict((oc) => oc.columns(["environment_id", "list_id", "value"]).doNothing())
            .execute();
          added++;
        }
      }
    });
    this.hasEntries.invalidate(environmentId);
    return { added, updated, total: await this.count(environmentId, listId) };
  }

  /** Which of `values` (normalised) the list holds live now: an import adds only the others. */
  async liveValues(environmentId: string, listId: string, values: string[]): Promise<Set<string>> {
    const unique = [...new Set(values.map(normaliseListValue))];
    if (unique.length === 0) return new Set();
    const rows = await this.db
      .selectFrom("list_entries")
      .select("value")
      .where("environment_id", "=", environmentId)
      .where("list_id", "=", listId)
      .where("value", "in", unique)
      .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now())]))
      .execute();
    return new Set(rows.map((r) => r.value));
  }

  async remove(environmentId: string, listId: string, values: string[]): Promise<{ removed: number; total: number }> {
    const res = await this.db
      .deleteFrom("list_entries")
      .where("environment_id", "=", environmentId)
      .where("list_id", "=", listId)
      .where("value", "in", [...new Set(values.map(normaliseListValue))])
      .executeTakeFirst();
    this.hasEntries.invalidate(environmentId);
    return { removed: Number(res.numDeletedRows), total: await this.count(environmentId, listId) };
  }

  async count(environmentId: string, listId: string): Promise<number> {
    const r = await this.db
      .selectFrom("list_entries")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("environment_id", "=", environmentId)
      .where("list_id", "=", listId)
      .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now())]))
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async entries(environmentId: string, listId: string, page: number, limit: number) {
    const rows = await this.db
      .selectFrom("list_entries")
      .select(["value", "comment", "expires_at", "created_at"])
      .where("environment_id", "=", environmentId)
      .where("list_id", "=", listId)
      .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now())]))
      .orderBy("value")
      .limit(limit)
      .offset((page - 1) * limit)
      .execute();
    return rows.map((r) => ({
      value: r.value,
      ...(r.comment ? { comment: r.comment } : {}),
      ...(r.expires_at != null ? { expires_at: iso(Number(r.expires_at)) } : {}),
      createdAt: iso(Number(r.created_at)),
    }));
  }

  /** Every list of the environment with its live entries and when it last changed (the console's lists screen). */
  async summaries(environmentId: string): Promise<{ id: string; entries: number; updatedAt: string }[]> {
    const rows = await this.db
      .selectFrom("list_entries")
      .select(["list_id", (eb) => eb.fn.countAll<number>().as("n"), (eb) => eb.fn.max("updated_at").as("updated")])
      .where("environment_id", "=", environmentId)
      .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now())]))
      .groupBy("list_id")
      .orderBy("list_id")
      .execute();
    return rows.map((r) => ({ id: r.list_id, entries: Number(r.n), updatedAt: iso(Number(r.updated)) }));
  }

  /** The live values of these lists, lower-cased, at most `cap` in all (a backtest holds them in memory). */
  async valuesOf(environmentId: string, listIds: string[], cap: number): Promise<Map<string, Set<string>>> {
    const out = new Map<string, Set<string>>(listIds.map((id) => [id, new Set<string>()]));
    if (listIds.length === 0) return out;
    const rows = await this.db
      .selectFrom("list_entries")
      .select(["list_id", "value"])
      .where("environment_id", "=", environmentId)
      .where("list_id", "in", listIds)
      .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now())]))
      .limit(cap)
      .execute();
    for (const r of rows) out.get(r.list_id)?.add(r.value.toLowerCase());
    return out;
  }

  /** (list, value) pairs of live entries holding any of the values: one indexed query per evaluation. */
  async membership(environmentId: string, values: string[], at: number): Promise<{ list_id: string; value: string }[]> {
    const unique = [...new Set(values.filter(Boolean).map(normaliseListValue))];
    if (unique.length === 0 || !(await this.anyEntries(environmentId))) return [];
    return this.db
      .selectFrom("list_entries")
      .select(["list_id", "value"])
      .where("environment_id", "=", environmentId)
      .where("value", "in", unique)
      .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", at)]))
      .limit(500)
      .execute();
  }
}

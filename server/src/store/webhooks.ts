import { type Kysely, type Selectable, sql } from "kysely";
import { newId } from "../ids.js";
import { now } from "../time.js";
import type { Dialect } from "./db.js";
import { insertRow, prepared } from "./prepared.js";
import type { Database } from "./schema.js";
import type { WebhookDeliveriesTable, WebhookEndpointsTable, WebhookEventsTable } from "./tables/webhooks.js";
import { Repository, type Transactions } from "./transactions.js";

const enabledEndpoints = prepared((db, p: { env: string }) =>
  db.selectFrom("webhook_endpoints").select(["id", "events"]).where("environment_id", "=", p.env).where("enabled", "=", 1),
);

/** Due deliveries read per claim when lanes are asked for: the oldest of them are shared out among the endpoints. */
const CANDIDATES = 500;

export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type WebhookEventRow = Selectable<WebhookEventsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;

/** A claimed delivery with what the worker needs to send it. */
export interface ClaimedDelivery {
  delivery: WebhookDeliveryRow;
  url: string;
  secret: string;
  payload: string;
  createdAt: number;
}

/** A new delivery of `event` to one endpoint, due at once. */
function pendingDelivery(event: WebhookEventRow, endpointId: string): WebhookDeliveryRow {
  return {
    id: newId("whd"),
    environment_id: event.environment_id,
    endpoint_id: endpointId,
    event_id: event.id,
    event: event.event,
    status: "pending",
    attempts: 0,
    next_attempt_at: event.created_at,
    lease_until: null,
    lease_owner: null,
    last_status_code: null,
    last_error: null,
    delivered_at: null,
    created_at: event.created_at,
    updated_at: event.created_at,
  };
}

export class WebhooksRepo extends Repository {
  constructor(
    transactions: Transactions,
    private readonly dialect: Dialect,
  ) {
    super(transactions);
  }

  async createEndpoint(row: WebhookEndpointRow): Promise<void> {
    await this.db.insertInto("webhook_endpoints").values(row).execute();
  }

  /**
   * Creates or updates the endpoint a CONFIG_FILE entry names (`source_key`): url, events, description and secret
   * follow the file; its enabled state and delivery history stay. Answers whether it was created.
   */
  async upsertEndpointByKey(
    row: Pick<WebhookEndpointRow, "id" | "environment_id" | "url" | "events" | "description" | "secret" | "source_key" | "created_at">,
  ): Promise<boolean> {
    const existing = await this.db
      .selectFrom("webhook_endpoints")
      .select("id")
      .where("environment_id", "=", row.environment_id)
      .where("source_key", "=", row.source_key)
      .executeTakeFirst();
    const fields = { url: row.url, events: row.events, description: row.description, secret: row.secret, updated_at: row.created_at };
    if (existing) {
      await this.db.updateTable("webhook_endpoints").set(fields).where("id", "=", existing.id).execute();
      return false;
    }
    await this.createEndpoint({ ...row, ...fields, enabled: 1, disabled_reason: null, consecutive_failures: 0 });
    return true;
  }

  async listEndpoints(environmentId: string): Promise<WebhookEndpointRow[]> {
    return this.db
      .selectFrom("webhook_endpoints")
      .selectAll()
      .where("environment_id", "=", environmentId)
      .orderBy("created_at", "desc")
      .orderBy("id")
      .execute();
  }

  async findEndpoint(environmentId: string, id: string): Promise<WebhookEndpointRow | undefined> {
    return this.db
      .selectFrom("webhook_endpoints")
      .selectAll()
      .where("environment_id", "=", environmentId)
      .where("id", "=", id)
      .executeTakeFirst();
  }

  /** Deletes the endpoint and its deliveries; answers whether it existed. */
  async deleteEndpoint(environmentId: string, id: string): Promise<boolean> {
    return this.transactions.run(async () => {
      const res = await this.db
        .deleteFrom("webhook_endpoints")
        .where("environment_id", "=", environmentId)
        .where("id", "=", id)
        .executeTakeFirst();
      if (Number(res.numDeletedRows) === 0) return false;
      await this.db.deleteFrom("webhook_deliveries").where("endpoint_id", "=", id).execute();
      return true;
    });
  }

  /** Records an event and one pending delivery of it to this endpoint only (a test event); answers the delivery. */
  async enqueueFor(event: WebhookEventRow, endpointId: string): Promise<WebhookDeliveryRow> {
    const delivery = pendingDelivery(event, endpointId);
    await this.transactions.run(async () => {
      await insertRow(this.db, "webhook_events", event);
      await this.db.insertInto("webhook_deliveries").values(delivery).execute();
    });
    return delivery;
  }

  /** Records an event and one pending delivery per enabled endpoint subscribed to it, in `db` (the caller's transaction). */
  async enqueue(event: WebhookEventRow): Promise<number> {
    await insertRow(this.db, "webhook_events", event);
    const endpoints = await enabledEndpoints.rows(this.db, { env: event.environment_id });
    const targets = endpoints.filter((e) => (JSON.parse(e.events) as string[]).includes(event.event));
    if (targets.length === 0) return 0;
    await this.db
      .insertInto("webhook_deliveries")
      .values(targets.map((e) => pendingDelivery(event, e.id)))
      .execute();
    return targets.length;
  }

  /**
   * Claims up to `limit` due deliveries for `owner` until `leaseUntil`, oldest first. With `lanes`, no endpoint takes
   * them all: at most `perEndpoint` of each endpoint's, or what `room` says for an endpoint (0: none; the worker is
   * still sending it as many as it may have). The outer conditions are repeated so that a row another claimer changed
   * meanwhile is re-checked (PostgreSQL re-evaluates them on the newest row version).
   */
  async claimDue(
    owner: string,
    at: number,
    leaseUntil: number,
    limit: number,
    lanes?: { perEndpoint: number; room?: ReadonlyMap<string, number> },
  ): Promise<ClaimedDelivery[]> {
    const room = [...(lanes?.room ?? new Map<string, number>())];
    const full = room.filter(([, n]) => n <= 0).map(([e]) => e);
    const some = room.filter(([, n]) => n > 0);
    const due = (qb: Kysely<Database>) => {
      let q = qb
        .selectFrom("webhook_deliveries")
        .select(["id", "endpoint_id", "next_attempt_at"])
        .where("status", "=", "pending")
        .where("next_attempt_at", "<=", at)
        .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", at)]));
      if (full.length) q = q.where("endpoint_id", "not in", full);
      // With lanes, a wider window of candidates is read, so that a backlog of one endpoint leaves room for others.
      q = q.orderBy("next_attempt_at").limit(lanes ? Math.max(limit, CANDIDATES) : limit);
      return this.dialect === "postgres" ? q.forUpdate().skipLocked() : q;
    };
    const chosen = (qb: Kysely<Database>) => {
      if (!lanes) return qb.selectFrom(due(qb).as("d")).select("d.id");
      const ranked = qb.selectFrom(due(qb).as("d")).select((eb) => [
        "d.id",
        "d.next_attempt_at",
        eb.fn
          .agg<number>("row_number")
          .over((o) => o.partitionBy("d.endpoint_id").orderBy("d.next_attempt_at"))
          .as("rank"),
        // The caps are small integers of the worker's, written as literals (a bound parameter in a CASE would be text).
        (some.length
          ? sql<number>`case ${sql.join(
              some.map(([endpoint, n]) => sql`when ${sql.ref("d.endpoint_id")} = ${endpoint} then ${sql.lit(Math.floor(n))}`),
              sql` `,
            )} else ${sql.lit(lanes.perEndpoint)} end`
          : sql<number>`${sql.lit(lanes.perEndpoint)}`
        ).as("cap"),
      ]);
      return qb.selectFrom(ranked.as("r")).select("r.id").whereRef("r.rank", "<=", "r.cap").orderBy("r.next_attempt_at").limit(limit);
    };
    const claimed = await this.db
      .updateTable("webhook_deliveries")
      .set({ lease_owner: owner, lease_until: leaseUntil, updated_at: at })
      .where("id", "in", () => chosen(this.db))
      .where("status", "=", "pending")
      .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", at)]))
      .returningAll()
      .execute();
    if (claimed.length === 0) return [];
    const rows = await this.db
      .selectFrom("webhook_deliveries as d")
      .innerJoin("webhook_endpoints as e", "e.id", "d.endpoint_id")
      .innerJoin("webhook_events as v", "v.id", "d.event_id")
      .select(["d.id", "e.url", "e.secret", "e.enabled", "v.payload", "v.created_at"])
      .where(
        "d.id",
        "in",
        claimed.map((c) => c.id),
      )
      .execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    const out: ClaimedDelivery[] = [];
    for (const delivery of claimed) {
      const r = byId.get(delivery.id);
      if (r?.enabled !== 1) {
        // Its endpoint was deleted or disabled since: settle it instead of sending.
        await this.settle(delivery.id, owner, {
          status: "failed",
          attempts: delivery.attempts,
          last_error: "endpoint disabled or deleted",
          at,
        });
        continue;
      }
      out.push({ delivery, url: r.url, secret: r.secret, payload: r.payload, createdAt: r.created_at });
    }
    return out;
  }

  /** Gives a claimed delivery back, due at once (its sender stopped before it knew the outcome); answers whether it held it. */
  async release(id: string, owner: string, at: number): Promise<boolean> {
    const res = await this.db
      .updateTable("webhook_deliveries")
      .set({ lease_owner: null, lease_until: null, next_attempt_at: at, updated_at: at })
      .where("id", "=", id)
      .where("lease_owner", "=", owner)
      .where("status", "=", "pending")
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /**
   * Releases every lease not held by `owner` (pending deliveries only): for a process that knows it is the only one
   * (the embedded store), whatever another owner leased was left by a process that stopped. Answers how many.
   */
  async releaseLeases(owner: string, at: number): Promise<number> {
    const res = await this.db
      .updateTable("webhook_deliveries")
      .set({ lease_owner: null, lease_until: null, updated_at: at })
      .where("status", "=", "pending")
      .where("lease_owner", "is not", null)
      .where("lease_owner", "!=", owner)
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  /** Deliveries not settled yet (metrics: the outbox's depth); counted on the (status, next_attempt_at) index. */
  async pendingCount(): Promise<number> {
    const row = await this.db
      .selectFrom("webhook_deliveries")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("status", "=", "pending")
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Records an attempt's outcome, only if `owner` still holds the lease (answers whether it did). */
  async settle(
    id: string,
    owner: string,
    o: {
      status: "pending" | "succeeded" | "failed";
      attempts: number;
      at: number;
      next_attempt_at?: number;
      last_status_code?: number | null;
      last_error?: string | null;
    },
  ): Promise<boolean> {
    const res = await this.db
      .updateTable("webhook_deliveries")
      .set({
        status: o.status,
        attempts: o.attempts,
        next_attempt_at: o.status === "pending" ? (o.next_attempt_at ?? o.at) : null,
        lease_owner: null,
        lease_until: null,
        last_status_code: o.last_status_code ?? null,
        last_error: o.last_error ?? null,
        delivered_at: o.status === "succeeded" ? o.at : null,
        updated_at: o.at,
      })
      .where("id", "=", id)
      .where("lease_owner", "=", owner)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /** A success resets the endpoint's failure count. */
  async endpointSucceeded(endpointId: string, at: number): Promise<void> {
    await this.db
      .updateTable("webhook_endpoints")
      .set({ consecutive_failures: 0, updated_at: at })
      .where("id", "=", endpointId)
      .where("consecutive_failures", ">", 0)
      .execute();
  }

  /** Counts a failed attempt; answers the endpoint's failures since its last success. */
  async endpointFailed(endpointId: string, at: number): Promise<number> {
    const row = await this.db
      .updateTable("webhook_endpoints")
      .set((eb) => ({ consecutive_failures: eb("consecutive_failures", "+", 1), updated_at: at }))
      .where("id", "=", endpointId)
      .returning("consecutive_failures")
      .executeTakeFirst();
    return row?.consecutive_failures ?? 0;
  }

  async disableEndpoint(endpointId: string, reason: string, at: number): Promise<void> {
    await this.db
      .updateTable("webhook_endpoints")
      .set({ enabled: 0, disabled_reason: reason, updated_at: at })
      .where("id", "=", endpointId)
      .execute();
  }

  async listDeliveries(
    environmentId: string,
    endpointId: string,
    page: number,
    limit: number,
  ): Promise<{ rows: WebhookDeliveryRow[]; total: number }> {
    const base = this.db.selectFrom("webhook_deliveries").where("environment_id", "=", environmentId).where("endpoint_id", "=", endpointId);
    const [rows, count] = await Promise.all([
      base
        .selectAll()
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(limit)
        .offset((page - 1) * limit)
        .execute(),
      base.select((eb) => eb.fn.countAll<number | string>().as("n")).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  }

  async findDelivery(environmentId: string, endpointId: string, id: string): Promise<WebhookDeliveryRow | undefined> {
    return this.db
      .selectFrom("webhook_deliveries")
      .selectAll()
      .where("environment_id", "=", environmentId)
      .where("endpoint_id", "=", endpointId)
      .where("id", "=", id)
      .executeTakeFirst();
  }

  /** Makes a failed delivery due again now (a fresh round of attempts); answers the row, or undefined if it was not failed. */
  async requeueFailed(environmentId: string, id: string, at: number): Promise<WebhookDeliveryRow | undefined> {
    return this.db
      .updateTable("webhook_deliveries")
      .set({ status: "pending", attempts: 0, next_attempt_at: at, lease_owner: null, lease_until: null, updated_at: at })
      .where("environment_id", "=", environmentId)
      .where("id", "=", id)
      .where("status", "=", "failed")
      .returningAll()
      .executeTakeFirst();
  }

  /** Re-enables an endpoint (a re-send implies the customer fixed it). */
  async enableEndpoint(endpointId: string, at: number): Promise<void> {
    await this.db
      .updateTable("webhook_endpoints")
      .set({ enabled: 1, disabled_reason: null, consecutive_failures: 0, updated_at: at })
      .where("id", "=", endpointId)
      .where("enabled", "=", 0)
      .execute();
  }

  /** Retention: removes settled deliveries and events older than `before`; answers how many rows went. */
  async pruneBefore(before: number): Promise<number> {
    const d = await this.db
      .deleteFrom("webhook_deliveries")
      .where("created_at", "<", before)
      .where("status", "!=", "pending")
      .executeTakeFirst();
    const e = await this.db
      .deleteFrom("webhook_events")
      .where("created_at", "<", before)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom("webhook_deliveries").select(sql`1`.as("one")).whereRef("webhook_deliveries.event_id", "=", "webhook_events.id"),
          ),
        ),
      )
      .executeTakeFirst();
    return Number(d.numDeletedRows) + Number(e.numDeletedRows);
  }

  /** Events recorded for an environment (newest first), for tests and diagnostics. */
  async listEvents(environmentId: string, limit = 100): Promise<WebhookEventRow[]> {
    return this.db
      .selectFrom("webhook_events")
      .selectAll()
      .where("environment_id", "=", environmentId)
      .orderBy("created_at", "desc")
      .limit(limit)
      .execute();
  }

  newEventRow(environmentId: string, event: string, payload: Record<string, unknown>, at = now()): WebhookEventRow {
    const id = typeof payload.id === "string" ? payload.id : newId("evt");
    return { id, environment_id: environmentId, event, payload: JSON.stringify(payload), created_at: at };
  }
}

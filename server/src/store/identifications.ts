// Repository of legacy identifications (a browser identifies, a backend completes with the account; docs/server-api.md)
// and of conversion markers (a sharer chose "create my own account" on this device; docs/challenges.md).
import type { Selectable } from "kysely";
import { newId } from "../ids.js";
import { prepared } from "./prepared.js";
import type { ConversionMarkersTable, IdentificationsTable } from "./tables/webhooks.js";
import { Repository } from "./transactions.js";

export type IdentificationRow = Selectable<IdentificationsTable>;
export type ConversionMarkerRow = Selectable<ConversionMarkersTable>;

const openMarkersOf = prepared((db, p: { env: string; device: string }) =>
  db
    .selectFrom("conversion_markers")
    .selectAll()
    .where("environment_id", "=", p.env)
    .where("device_id", "=", p.device)
    .where("converted_at", "is", null),
);

export class IdentificationsRepo extends Repository {
  async insert(row: IdentificationRow): Promise<void> {
    await this.db.insertInto("identifications").values(row).execute();
  }

  async find(environmentId: string, id: string): Promise<IdentificationRow | undefined> {
    return this.db
      .selectFrom("identifications")
      .selectAll()
      .where("environment_id", "=", environmentId)
      .where("id", "=", id)
      .executeTakeFirst();
  }

  /** Marks it completed if and only if it was not (one conditional UPDATE: concurrent completes, one wins). */
  async complete(id: string, fields: { user_id: string; access_id: string; new_device: boolean; at: number }): Promise<boolean> {
    const res = await this.db
      .updateTable("identifications")
      .set({ user_id: fields.user_id, access_id: fields.access_id, new_device: fields.new_device ? 1 : 0, completed_at: fields.at })
      .where("id", "=", id)
      .where("completed_at", "is", null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  async markConversion(m: {
    environmentId: string;
    deviceId: string;
    fromUserId?: string | null;
    challengeId?: string | null;
    at: number;
  }): Promise<string> {
    const id = newId("cvm");
    await this.db
      .insertInto("conversion_markers")
      .values({
        id,
        environment_id: m.environmentId,
        device_id: m.deviceId,
        from_user_id: m.fromUserId ?? null,
        challenge_id: m.challengeId ?? null,
        converted_user_id: null,
        converted_at: null,
        created_at: m.at,
      })
      .execute();
    return id;
  }

  /** The open (not yet converted) markers of a device. */
  async openMarkers(environmentId: string, deviceId: string): Promise<ConversionMarkerRow[]> {
    return openMarkersOf.rows(this.db, { env: environmentId, device: deviceId });
  }

  /** Closes a marker once (conditional UPDATE) and stamps the user converted; answers whether this call closed it. */
  async closeMarker(id: string, userId: string, at: number): Promise<boolean> {
    const res = await this.db
      .updateTable("conversion_markers")
      .set({ converted_user_id: userId, converted_at: at })
      .where("id", "=", id)
      .where("converted_at", "is", null)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) return false;
    await this.db.updateTable("users").set({ converted_at: at, updated_at: at }).where("id", "=", userId).execute();
    return true;
  }
}

import type { DeviceRow } from "./devices.js";
import { evaluationEnvironments } from "./evaluation-stats.js";
import { forgetFamiliarity, pruneFamiliarity } from "./familiarity.js";
import { nextTurn, Repository } from "./transactions.js";
import type { UserRow } from "./users.js";

export interface ErasedCounts {
  evaluations: number;
  devices: number;
  fingerprints: number;
  access_records: number;
}

const n = (r: { numDeletedRows?: bigint; numUpdatedRows?: bigint }) => Number(r.numDeletedRows ?? r.numUpdatedRows ?? 0n);

export class UserDataRepo extends Repository {
  async update(id: string, patch: Partial<Omit<UserRow, "id" | "environment_id" | "external_id">>): Promise<void> {
    await this.db.updateTable("users").set(patch).where("id", "=", id).execute();
  }

  /** The update above, only if the metadata is still as the caller read it (a merge's compare-and-set). */
  async updateIf(
    id: string,
    expected: Pick<UserRow, "metadata">,
    patch: Partial<Omit<UserRow, "id" | "environment_id" | "external_id">>,
  ): Promise<boolean> {
    const res = await this.db
      .updateTable("users")
      .set(patch)
      .where("id", "=", id)
      .where("metadata", "=", expected.metadata)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /** A device with its user's ids, read in `db` (the caller's transaction). */
  async deviceWithOwner(
    environmentId: string,
    deviceId: string,
  ): Promise<{ device: DeviceRow; user?: { id: string; external_id: string } } | undefined> {
    const device = await this.db
      .selectFrom("devices")
      .selectAll()
      .where("environment_id", "=", environmentId)
      .where("id", "=", deviceId)
      .executeTakeFirst();
    if (!device) return undefined;
    const user = device.user_id
      ? await this.db.selectFrom("users").select(["id", "external_id"]).where("id", "=", device.user_id).executeTakeFirst()
      : undefined;
    return { device, user };
  }

  /**
   * The device ids of a user, for erasers of other areas: the devices of the account, and the devices nobody owns that
   * only this user's evaluations named (a page view never puts a device on an account's list, pipeline/persist-identity.ts,
   * yet the browser was this user's). A device another user's evaluations named is that user's data too: it stays.
   */
  async deviceIds(environmentId: string, userId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom("devices")
      .select("id")
      .where("environment_id", "=", environmentId)
      .where((eb) =>
        eb.or([
          eb("user_id", "=", userId),
          eb.and([
            eb("user_id", "is", null),
            eb(
              "id",
              "in",
              eb
                .selectFrom("evaluations")
                .select("device_id")
                .where("environment_id", "=", environmentId)
                .where("user_id", "=", userId)
                .where("device_id", "is not", null)
                .$narrowType<{ device_id: string }>(),
            ),
            eb.not(
              eb.exists(
                eb
                  .selectFrom("evaluations as other")
                  .select("other.id")
                  .where("other.environment_id", "=", environmentId)
                  .whereRef("other.device_id", "=", "devices.id")
                  .where("other.user_id", "is not", null)
                  .where("other.user_id", "!=", userId),
              ),
            ),
          ]),
        ]),
      )
      .execute();
    return rows.map((r) => r.id);
  }

  /**
   * Erases the user's evaluations, devices (deviceIds), access records and identifications, the fingerprints seen only
   * with this user, and the user row itself.
   */
  async erase(environmentId: string, userId: string): Promise<ErasedCounts> {
    const deviceIds = await this.deviceIds(environmentId, userId);
    const ofEvaluations = this.db
      .selectFrom("evaluations")
      .select("fingerprint_id")
      .where("environment_id", "=", environmentId)
      .where("user_id", "=", userId)
      .where("fingerprint_id", "is not", null);
    const fpRows = await (deviceIds.length > 0
      ? ofEvaluations.union(
          this.db
            .selectFrom("devices")
            .select("fingerprint_id")
            .where("environment_id", "=", environmentId)
            .where("id", "in", deviceIds)
            .where("fingerprint_id", "is not", null),
        )
      : ofEvaluations
    ).execute();
    const fingerprintIds = [...new Set(fpRows.map((r) => r.fingerprint_id).filter((x): x is string => x != null))];

    const evaluations = n(
      await this.db.deleteFrom("evaluations").where("environment_id", "=", environmentId).where("user_id", "=", userId).executeTakeFirst(),
    );
    let accessRecords = n(
      await this.db
        .deleteFrom("access_records")
        .where("environment_id", "=", environmentId)
        .where("user_id", "=", userId)
        .executeTakeFirst(),
    );
    if (deviceIds.length > 0) {
      accessRecords += n(
        await this.db
          .deleteFrom("access_records")
          .where("environment_id", "=", environmentId)
          .where("device_id", "in", deviceIds)
          .executeTakeFirst(),
      );
      await this.db.deleteFrom("identifications").where("environment_id", "=", environmentId).where("device_id", "in", deviceIds).execute();
      await this.db
        .deleteFrom("conversion_markers")
        .where("environment_id", "=", environmentId)
        .where("device_id", "in", deviceIds)
        .execute();
    }
    await this.db.deleteFrom("identifications").where("environment_id", "=", environmentId).where("user_id", "=", userId).execute();
    // What the user was let in with (the familiarity ledger: store/familiarity.ts).
    await forgetFamiliarity(this.db, environmentId, [userId]);
    // The devices the user signed in on, and every sign-in on the user's own devices.
    await this.db
      .deleteFrom("device_confirmations")
      .where("environment_id", "=", environmentId)
      .where((eb) =>
        deviceIds.length > 0 ? eb.or([eb("user_id", "=", userId), eb("device_id", "in", deviceIds)]) : eb("user_id", "=", userId),
      )
      .execute();
    const devices =
      deviceIds.length > 0
        ? n(await this.db.deleteFrom("devices").where("environment_id", "=", environmentId).where("id", "in", deviceIds).executeTakeFirst())
        : 0;

    // A fingerprint still used by another user's device or evaluation is that user's data too: keep it.
    let fingerprints = 0;
    if (fingerprintIds.length > 0) {
      const stillUsed = await this.db
        .selectFrom("devices")
        .select("fingerprint_id")
        .where("environment_id", "=", environmentId)
        .where("fingerprint_id", "in", fingerprintIds)
        .union(
          this.db
            .selectFrom("evaluations")
            .select("fingerprint_id")
            .where("environment_id", "=", environmentId)
            .where("fingerprint_id", "in", fingerprintIds),
        )
        .execute();
      const keep = new Set(stillUsed.map((r) => r.fingerprint_id));
      const gone = fingerprintIds.filter((id) => !keep.has(id));
      if (gone.length > 0)
        fingerprints = n(
          await this.db.deleteFrom("fingerprints").where("environment_id", "=", environmentId).where("id", "in", gone).executeTakeFirst(),
        );
    }
    await this.db.deleteFrom("users").where("id", "=", userId).execute();
    return { evaluations, devices, fingerprints, access_records: accessRecords };
  }

  /**
   * Retention: deletes evaluations and access records created before `before`, in batches; answers the counts. The
   * familiarity ledger's rows that only those evaluations vouched for go with them: rows of the users of the trusted
   * evaluations deleted, whose latest trusted evaluation is older than `before` (store/familiarity.ts).
   */
  async pruneBefore(before: number, batch = 1000): Promise<{ evaluations: number; access_records: number }> {
    const out = { evaluations: 0, access_records: 0 };
    // One environment at a time, through its (environment, time) index: no index leads with the time alone (migration 35).
    for await (const env of evaluationEnvironments(this.db))
      for (;;) {
        const rows = await this.db
          .selectFrom("evaluations")
          .select(["id", "user_id", "confirmed"])
          .where("environment_id", "=", env)
          .where("created_at", "<", before)
          .limit(batch)
          .execute();
        if (rows.length === 0) break;
        const res = await this.db
          .deleteFrom("evaluations")
          .where(
            "id",
            "in",
            rows.map((r) => r.id),
          )
          .executeTakeFirst();
        out.evaluations += n(res);
        const trustedUsers = new Set<string>();
        for (const r of rows) if (r.user_id && Number(r.confirmed) === 1) trustedUsers.add(r.user_id);
        if (trustedUsers.size > 0) await pruneFamiliarity(this.db, env, [...trustedUsers], before);
        await nextTurn();
        if (rows.length < batch) break;
      }
    for (;;) {
      const ids = await this.db.selectFrom("access_records").select("id").where("created_at", "<", before).limit(batch).execute();
      if (ids.length === 0) break;
      const res = await this.db
        .deleteFrom("access_records")
        .where(
          "id",
          "in",
          ids.map((r) => r.id),
        )
        .executeTakeFirst();
      out.access_records += n(res);
      if (ids.length < batch) break;
      await nextTurn();
    }
    return out;
  }
}

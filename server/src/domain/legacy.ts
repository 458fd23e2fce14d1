// The legacy server API's own operations (`/v2/proj`, routes/legacy-v2.ts): the access history in mongoose-paginate's envelope,
// which the legacy API answered, and the completion of an identification. Its other endpoints are the v3 services'.
import type { Repos } from "../store/repos.js";
import { iso } from "../time.js";
import { completeIdentification } from "./devices.js";

export class LegacyService {
  constructor(private readonly repos: Repos) {}

  /** The access records of a user (the customer's id) and/or a device, newest first; a user we never met has none. */
  async accessHistory(environmentId: string, q: { user?: string; device?: string; page: number; per: number }) {
    const { repos } = this;
    const { user, device, per, page } = q;
    let userId: string | undefined;
    let empty = false;
    if (user) {
      const row = await repos.users.findByExternal(environmentId, user);
      if (row) userId = row.id;
      else empty = true;
    }
    const { rows, total } = empty
      ? { rows: [], total: 0 }
      : await repos.accessRecords.page(environmentId, { userId, deviceId: device }, page, per);
    const externals = new Map<string, string>();
    for (const id of new Set(rows.map((r) => r.user_id).filter((x): x is string => x != null))) {
      const u = await repos.users.findById(id);
      if (u) externals.set(id, u.external_id);
    }
    // The envelope of mongoose-paginate, which the legacy API answered: totalPages is at least 1.
    const totalPages = Math.max(1, Math.ceil(total / per));
    return {
      docs: rows.map((r) => {
        const u = r.user_id ? externals.get(r.user_id) : undefined;
        return {
          id: r.id,
          device: r.device_id,
          ...(u ? { user: u } : {}),
          confidence: r.confidence,
          createdAt: iso(r.created_at),
          updatedAt: iso(r.updated_at),
        };
      }),
      totalDocs: total,
      limit: per,
      totalPages,
      page,
      pagingCounter: (page - 1) * per + 1,
      hasPrevPage: page > 1,
      hasNextPage: page < totalPages,
      prevPage: page > 1 ? page - 1 : null,
      nextPage: page < totalPages ? page + 1 : null,
    };
  }

  /** The backend names the account an identification belongs to (once: a second call is a 409). */
  completeIdentification(environmentId: string, identificationId: string, account: string) {
    return completeIdentification(this.repos, environmentId, identificationId, account);
  }
}

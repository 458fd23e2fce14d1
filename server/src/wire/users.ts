// What the wire shows of a user that another object embeds (an evaluation's, a challenge's).
import type { UserRow } from "../store/users.js";

/** The customer's id of a user as the wire shows it: none for an account known by its email only. */
export function customerIdOf(user: Pick<UserRow, "id" | "external_id">): { id?: string } {
  return user.external_id === user.id ? {} : { id: user.external_id };
}

// Operator roles (docs/console.md): owner may do everything, analyst may read and change lists and challenges, viewer
// may only read. Ranked, so that "at least analyst" is one comparison.
import type { Role } from "@tessera/sdk/contract";

const RANK: Record<Role, number> = { viewer: 0, analyst: 1, owner: 2 };

export const roleAllows = (has: Role, needs: Role): boolean => RANK[has] >= RANK[needs];

/** The stronger of two roles (an installation admin's role and a project grant). */
export const strongest = (a: Role | undefined, b: Role | undefined): Role | undefined =>
  a === undefined ? b : b === undefined ? a : RANK[a] >= RANK[b] ? a : b;

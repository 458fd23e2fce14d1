// Opaque, unguessable ids: a readable prefix and 144 random bits.
import { randomBytes } from "node:crypto";

export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(18).toString("base64url")}`;
}

/** A secret: longer, for keys and signing secrets (shown once, stored hashed). */
export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString("base64url")}`;
}

// Opaque, unguessable ids: a readable prefix and 144 random bits.
import { randomBytes, randomFillSync } from "node:crypto";

const ID_BYTES = 18;
/**
 * CSPRNG bytes for 256 ids, filled at once: one randomBytes call per id was a visible share of an evaluation's CPU
 * (several ids each). Every id still takes its own fresh bytes, never handed out twice; Node's randomUUID pools
 * its entropy the same way.
 */
const pool = Buffer.alloc(ID_BYTES * 256);
let offset = pool.length;

export function newId(prefix: string): string {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const id = pool.toString("base64url", offset, offset + ID_BYTES);
  offset += ID_BYTES;
  return `${prefix}_${id}`;
}

/** A secret: longer, for keys and signing secrets (shown once, stored hashed). */
export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString("base64url")}`;
}

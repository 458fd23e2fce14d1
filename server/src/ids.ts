// Opaque, unguessable ids: a readable prefix and 144 bits, the first 48 the time of creation (ms), the other 96 random
// (docs/decisions/time-ordered-ids.md).
import { randomBytes, randomFillSync } from "node:crypto";

/** Random bytes per id: 96 bits, as many as a UUIDv4 has and far more than anyone can guess. */
const RANDOM_BYTES = 12;
/**
 * CSPRNG bytes for 256 ids, filled at once: one randomBytes call per id was a visible share of an evaluation's CPU
 * (several ids each). Every id still takes its own fresh bytes, never handed out twice; Node's randomUUID pools
 * its entropy the same way.
 */
const pool = Buffer.alloc(RANDOM_BYTES * 256);
let offset = pool.length;

/**
 * base64url's 64 characters in ascending byte order: the creation time written with them sorts as the time does, under
 * SQLite's and PostgreSQL's C ordering alike, so each new id lands at the right edge of its table's primary-key index
 * (one page written per commit, not a random leaf per row; docs/storage.md).
 */
const ORDERED = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz";
/** The 8 characters (48 bits, until the year 10889) of the last millisecond an id was made in, and that millisecond. */
let lastMs = -1;
let lastTime = "";

/** `ms` in 8 characters of ORDERED, most significant first. */
export function timePart(ms: number): string {
  let out = "";
  // 48 bits exceed a 32-bit integer: divide rather than shift.
  for (let i = 0, x = ms; i < 8; i++, x = Math.floor(x / 64)) out = ORDERED[x % 64] + out;
  return out;
}

export function newId(prefix: string): string {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  // The wall clock, not the application's (time.ts can be simulated): ids are ordered by when they were made.
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastTime = timePart(ms);
  }
  const id = pool.toString("base64url", offset, offset + RANDOM_BYTES);
  offset += RANDOM_BYTES;
  return `${prefix}_${lastTime}${id}`;
}

/** A secret: longer, for keys and signing secrets (shown once, stored hashed). */
export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString("base64url")}`;
}

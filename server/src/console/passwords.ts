// Operator passwords (docs/console.md): scrypt from node:crypto, never stored in clear. The stored form names its
// parameters (`scrypt$N$r$p$salt$hash`) so that stronger ones can be adopted later without breaking old hashes.
import { randomBytes, type ScryptOptions, scrypt as scryptCb, timingSafeEqual } from "node:crypto";

/**
 * OWASP's password storage guidance lists N=2^15, r=8, p=3 among the scrypt settings equal to its minimum
 * (N=2^17, r=8, p=1): 32 MiB per hash instead of 128 MiB, so concurrent sign-ins on a small server stay affordable.
 * About 0.1–0.2 s of one core each, off the event loop (libuv's thread pool).
 */
const PARAMS = { N: 2 ** 15, r: 8, p: 3 };
const KEY_BYTES = 32;
const SALT_BYTES = 16;

function scrypt(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  // maxmem must exceed 128·N·r (32 MiB here) with room for OpenSSL's own bookkeeping.
  const options: ScryptOptions = { N: n, r, p, maxmem: 256 * n * r + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scryptCb(password.normalize("NFKC"), salt, KEY_BYTES, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await scrypt(password, salt, PARAMS.N, PARAMS.r, PARAMS.p);
  return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

/** A hash that no password matches, verified for unknown emails so their answer takes as long as a wrong password. */
let decoy: Promise<string> | undefined;

/** Whether `password` matches `stored`; with no stored hash, spends the same time and answers false. */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  if (!stored) decoy ??= hashPassword(randomBytes(16).toString("hex"));
  const target = stored ?? (await (decoy as Promise<string>));
  const [scheme, n, r, p, salt, hash] = target.split("$");
  if (scheme !== "scrypt" || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64url");
  const key = await scrypt(password, Buffer.from(salt, "base64url"), Number(n), Number(r), Number(p));
  return key.length === expected.length && timingSafeEqual(key, expected) && stored != null;
}

// The server's own keys ("Secrets at rest"; docs/security.md): one master key, SERVER_KEY, from which each use derives its
// own key (HKDF-SHA256): the HMAC key of one-time code hashes and the key that seals identity secrets in the store.
// Without SERVER_KEY, a master key is generated once and kept in the store (every instance shares it); then a copy of
// the database holds the key beside what it protects, which is why production should set SERVER_KEY.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

export interface ServerKeys {
  /** HMAC-SHA256 key of one-time code hashes: a stolen hash of a 6-digit code cannot be tried offline without it. */
  codeHash: Buffer;
  /** AES-256-GCM key sealing identity secrets (identity-verification/), which must stay usable to verify HMACs. */
  sealing: Buffer;
  /** HMAC key of the SMS provider's status-callback URLs (delivery/callbacks.ts): only the provider we told can report. */
  deliveryCallback: Buffer;
}

const derive = (master: string, use: string) => Buffer.from(hkdfSync("sha256", master, "tessera", use, 32));

export function deriveServerKeys(master: string): ServerKeys {
  return {
    codeHash: derive(master, "code-hash"),
    sealing: derive(master, "identity-secret-sealing"),
    deliveryCallback: derive(master, "delivery-callback"),
  };
}

/** A fresh master key for a store that has none. */
export const newMasterKey = (): string => randomBytes(32).toString("base64url");

/** Seals `plain`: "v1.<iv>.<ciphertext>.<tag>", base64url; authenticated, so a changed value does not open. */
export function seal(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return ["v1", iv.toString("base64url"), body.toString("base64url"), cipher.getAuthTag().toString("base64url")].join(".");
}

/** The sealed value, or undefined when it was sealed under another key or altered. */
export function unseal(key: Buffer, sealed: string): string | undefined {
  const [version, iv, body, tag] = sealed.split(".");
  if (version !== "v1" || !iv || body === undefined || !tag) return undefined;
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    return undefined;
  }
}

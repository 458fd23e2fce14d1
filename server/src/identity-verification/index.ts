// Identity verification (docs/security.md): the customer's backend signs the user id for the browser — user_token =
// base64url(HMAC-SHA256(identity secret, user)) — so that a client call naming a user proves the backend vouches for
// it. Per environment: off (tokens are not looked at), optional (a valid token marks identity_verified), required
// (a client call naming a user without a valid token is refused, 401). Client attach always needs a valid token (403).
//
// The identity secret at rest: it must stay usable to compute HMACs (a hash of it would verify nothing), so it is
// stored sealed with AES-256-GCM under a key derived from SERVER_KEY (secrets.ts), never in clear; the plain secret is
// shown once, when created or rotated. With SERVER_KEY outside the database, a copy of the database cannot mint tokens.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Environment } from "@tessera/sdk/contract";
import { BoundedMap } from "../caches.js";
import { ApiError } from "../errors.js";
import { seal, unseal } from "../secrets.js";
import type { EnvironmentRecord, ProjectsRepo } from "../store/projects.js";

/** The token of `user` under `secret`, as the backend client's `userToken` computes it. */
export const userToken = (secret: string, user: string): string => createHmac("sha256", secret).update(user, "utf8").digest("base64url");

/** A fresh identity secret: 32 random bytes, prefixed so that it is recognised in a configuration file. */
export const newIdentitySecret = (): string => `idsec_${randomBytes(32).toString("base64url")}`;

export class IdentityVerification {
  /** Sealed → plain: unsealing is cheap, but every client call naming a user needs it. A handful per environment. */
  private readonly opened = new BoundedMap<string, string | null>(1000);

  constructor(
    private readonly projects: ProjectsRepo,
    /** ServerKeys.sealing */
    private readonly sealingKey: Buffer,
  ) {}

  /** Creates or replaces an environment's identity secret; answers it (shown once), or undefined for no such project. */
  async rotate(projectId: string, env: Environment): Promise<string | undefined> {
    const secret = newIdentitySecret();
    return (await this.projects.setIdentitySecret(projectId, env, seal(this.sealingKey, secret))) ? secret : undefined;
  }

  private secretOf(env: EnvironmentRecord): string | undefined {
    const sealed = env.sealedIdentitySecret;
    if (!sealed) return undefined;
    let plain = this.opened.get(sealed);
    if (plain === undefined) {
      // Sealed under another SERVER_KEY: unusable until the secret is rotated.
      plain = unseal(this.sealingKey, sealed) ?? null;
      this.opened.set(sealed, plain);
    }
    return plain ?? undefined;
  }

  /** Whether `token` is the valid user_token of `user` in this environment (constant-time comparison). */
  verify(env: EnvironmentRecord, user: string, token: string | undefined): boolean {
    const secret = this.secretOf(env);
    if (!secret || !token) return false;
    const expected = Buffer.from(userToken(secret, user));
    const given = Buffer.from(token);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  /**
   * The rule for one client call: answers whether the named user is verified, or refuses the call. `attach`: linking
   * a browser to an account always needs a valid token, whatever the mode (a public client id must not be enough).
   */
  check(env: EnvironmentRecord, call: { user?: string; user_token?: string }, opts: { attach?: boolean } = {}): boolean {
    if (!call.user) return false;
    const mode = env.environmentSettings.identity_verification ?? "optional";
    if (mode === "off" && !opts.attach) return false;
    if (this.verify(env, call.user, call.user_token)) return true;
    if (opts.attach)
      throw new ApiError(403, "identity_verification_required", "Attaching a device needs a valid user_token for this user", "user_token");
    if (mode === "required")
      throw new ApiError(401, "invalid_user_token", "This environment requires a valid user_token for the user named", "user_token");
    return false;
  }
}

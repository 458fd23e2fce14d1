// What one evaluation request carries into the pipeline, whichever API it came through (docs/client-api.md, docs/server-api.md).
import type { Content, Metadata, Signals } from "@tessera/sdk/contract";
import type { EnvironmentRecord } from "../store/projects.js";

export interface EvaluationInput {
  env: EnvironmentRecord;
  action: string;
  /** client: the browser SDK through /v3/client; server: a backend through /v3/evaluate. */
  source: "client" | "server";
  ip: string | undefined;
  userAgent: string | undefined;
  /** Request headers, for proxy and forwarding evidence. */
  headers: Record<string, string | string[] | undefined>;
  user?: string;
  /** A client call's user_token was valid for `user` (identity-verification/): the backend vouches for the user. */
  identityVerified?: boolean;
  email?: string;
  phone?: string;
  metadata?: Metadata;
  signals: Signals;
  content?: Content;
  /** Server evaluations may name a client evaluation or a fingerprint to reuse its device and fingerprint. */
  linkedEvaluationId?: string;
  linkedFingerprintId?: string;
  at: number;
}

// The calls the hosted app makes (challenges; docs/server-api.md), authorised by the challenge token of the redirect URL.
// Every answer is checked against the shared wire contract; every failure becomes one typed ApiError.
import { ChallengeDevices, ChallengeView, ErrorBody, SignupChoiceResponse } from "@tessera/sdk/contract";

export class ApiError extends Error {
  constructor(
    /** HTTP status, or 0 when the server could not be reached. */
    readonly status: number,
    /** The wire error code (docs/server-api.md), or "network" / "bad_response" for failures seen only by the app. */
    readonly code: string,
    message: string,
    /** Seconds from Retry-After on a 429. */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

type Schema<T> = { safeParse(data: unknown): { success: true; data: T } | { success: false } };

let challengeId = "";
let token = "";

export function authorise(id: string, challengeToken: string): void {
  challengeId = id;
  token = challengeToken;
}

async function call<T>(method: "GET" | "POST", op: string, schema: Schema<T>, body?: object): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`/v3/challenges/${encodeURIComponent(challengeId)}/${op}`, {
      method,
      headers: {
        accept: "application/json",
        "x-challenge-token": token,
        ...(method === "POST" ? { "content-type": "application/json" } : {}),
      },
      body: method === "POST" ? JSON.stringify(body ?? {}) : undefined,
      credentials: "omit",
      cache: "no-store",
    });
  } catch (err) {
    throw new ApiError(0, "network", String(err));
  }
  let json: unknown;
  try {
    json = await res.json();
  } catch {
    json = undefined;
  }
  if (!res.ok) {
    const body = ErrorBody.safeParse(json);
    const retryAfter = Number(res.headers.get("retry-after")) || undefined;
    if (body.success) throw new ApiError(res.status, body.data.error.code, body.data.error.message, retryAfter);
    throw new ApiError(res.status, res.status === 429 ? "rate_limited" : "internal", `HTTP ${res.status}`, retryAfter);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new ApiError(res.status, "bad_response", `Unexpected answer to ${op}`);
  return parsed.data;
}

export const api = {
  open: () => call("POST", "open", ChallengeView),
  view: () => call("GET", "view", ChallengeView),
  send: (channel: "email" | "text", language: string) => call("POST", "send", ChallengeView, { channel, language }),
  verify: (code: string) => call("POST", "verify", ChallengeView, { code }),
  devices: () => call("GET", "devices", ChallengeDevices).then((r) => r.data),
  kick: (device: string) => call("POST", "kick", ChallengeDevices, { device }).then((r) => r.data),
  kickOthers: () => call("POST", "kick", ChallengeDevices, { others: true }).then((r) => r.data),
  signup: () => call("POST", "signup", SignupChoiceResponse),
  complete: (skip = false) => call("POST", "complete", ChallengeView, skip ? { outcome: "skip" } : {}),
};

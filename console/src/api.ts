// The console's calls (docs/console.md): the session endpoints under /console/api and the /v3 server API, authenticated by
// the HttpOnly session cookie and the environment shown (X-Tessera-Environment). Every failure is one ApiError with
// the server's code, message and offending parameter.
import type { ErrorBody } from "@tessera/sdk/contract";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** The wire error code, or "network" when the server could not be reached. */
    readonly code: string,
    message: string,
    readonly param?: string,
  ) {
    super(message);
  }
}

let environmentId = "";
/** Called when a call finds the session gone (401): the app shows the sign-in screen. */
let onSignedOut: () => void = () => {};

export function useEnvironment(id: string): void {
  environmentId = id;
}
export function whenSignedOut(fn: () => void): void {
  onSignedOut = fn;
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: "same-origin",
      cache: "no-store",
      headers: {
        accept: "application/json",
        ...(path.startsWith("/v3/") ? { "x-tessera-environment": environmentId } : {}),
        ...(method === "GET" ? {} : { "content-type": "application/json" }),
      },
      body: method === "GET" ? undefined : JSON.stringify(body ?? {}),
    });
  } catch (err) {
    throw new ApiError(0, "network", String(err));
  }
  if (res.status === 204) return undefined as T;
  const json = (await res.json().catch(() => undefined)) as unknown;
  if (!res.ok) {
    const e = (json as ErrorBody | undefined)?.error;
    if (res.status === 401 && path.startsWith("/v3/")) onSignedOut();
    throw new ApiError(res.status, e?.code ?? "internal", e?.message ?? `HTTP ${res.status}`, e?.param);
  }
  return json as T;
}

export const get = <T>(path: string) => call<T>("GET", path);
export const post = <T>(path: string, body?: unknown) => call<T>("POST", path, body);
export const patch = <T>(path: string, body: unknown) => call<T>("PATCH", path, body);
export const del = <T>(path: string) => call<T>("DELETE", path);

/** A query string from the set values only. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
}

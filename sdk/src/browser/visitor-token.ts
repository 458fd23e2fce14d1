// The first-party visitor token (docs/client-api.md): a random id kept in localStorage, with a cookie fallback when
// storage is blocked, so the server can link evaluations of one browser even when its fingerprint drifts.

const KEY = "tessera_vt";
// One year: long enough to recognise a returning device, short enough to age out abandoned browsers.
const COOKIE_MAX_AGE = 365 * 24 * 3600;

function randomToken(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function fromStorage(): string | undefined {
  try {
    return localStorage.getItem(KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

function toStorage(token: string): boolean {
  try {
    localStorage.setItem(KEY, token);
    return localStorage.getItem(KEY) === token;
  } catch {
    return false;
  }
}

function fromCookie(): string | undefined {
  try {
    const match = document.cookie.match(/(?:^|;\s*)tessera_vt=([0-9a-f]{16,64})/);
    return match?.[1];
  } catch {
    return undefined;
  }
}

function toCookie(token: string): void {
  try {
    const secure = location.protocol === "https:" ? "; Secure" : "";
    // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is async and missing in Firefox/Safari; the value is hex.
    document.cookie = `${KEY}=${token}; Max-Age=${COOKIE_MAX_AGE}; Path=/; SameSite=Lax${secure}`;
  } catch {
    // Cookies blocked too: the token lives for this page only.
  }
}

let memory: string | undefined;

/** Reads or creates the token. `allowCookie` is false under `consent: "security"` (storage only). */
export function visitorToken(allowCookie: boolean): string {
  const known = fromStorage() ?? (allowCookie ? fromCookie() : undefined) ?? memory;
  const token = known ?? randomToken();
  memory = token;
  if (!toStorage(token) && allowCookie) toCookie(token);
  return token;
}

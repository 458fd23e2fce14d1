// The SDK's typed errors (docs/sdk.md), shared by the browser SDK and the backend client: one small class per
// way a call can fail, each with a stable `code`, so callers branch on `instanceof` or `code`, never on text.

/** Base class of every error the SDK and the backend client reject with. */
export class TesseraError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "TesseraError";
    this.code = code;
  }
}

/** A bad argument, caught before anything is sent; `param` names it. */
export class ArgumentError extends TesseraError {
  readonly param: string;
  constructor(param: string, message: string) {
    super("invalid_argument", `Tessera: invalid argument \`${param}\`: ${message}`);
    this.name = "ArgumentError";
    this.param = param;
  }
}

/**
 * Options the SDK or the client does not know, refused rather than ignored (a misspelt or another service's option
 * would otherwise silently do nothing): `options` lists them, `param` names the first.
 */
export class UnknownOptionError extends ArgumentError {
  readonly options: readonly string[];
  constructor(where: string, options: readonly string[], hint = "") {
    super(`${where}.${options[0]}`, `unknown option${options.length > 1 ? "s" : ""} ${options.join(", ")}${hint}`);
    this.name = "UnknownOptionError";
    this.options = options;
  }
}

/** Refuses the keys of `value` that `known` does not list; `renamed` suggests the right name for a known mistake. */
export function refuseUnknownOptions(
  where: string,
  value: unknown,
  known: readonly string[],
  renamed: Readonly<Record<string, string>> = {},
): void {
  if (!value || typeof value !== "object") return;
  const unknown = Object.keys(value).filter((k) => !known.includes(k));
  if (unknown.length === 0) return;
  const hints = unknown.filter((k) => renamed[k]).map((k) => `${k} is ${renamed[k]} here`);
  throw new UnknownOptionError(where, unknown, hints.length ? ` (${hints.join("; ")})` : ` (known: ${known.join(", ")})`);
}

/** The server answered with an error status (4xx/5xx) or with a body that does not match the contract. */
export class ApiError extends TesseraError {
  readonly status: number;
  readonly param: string | undefined;
  /** The raw error body, `{ error: { status, code, message, param? } }` when the server sent one. */
  readonly body: unknown;
  constructor(status: number, code: string, message: string, body?: unknown, param?: string) {
    super(code, `Tessera: ${message} (HTTP ${status}, ${code})`);
    this.name = "ApiError";
    this.status = status;
    this.body = body;
    this.param = param;
  }
}

/** The server could not be reached (connection refused, DNS, CORS, offline) after the bounded retries. */
export class NetworkError extends TesseraError {
  constructor(message: string, cause?: unknown) {
    super("network_error", `Tessera: ${message}`, { cause });
    this.name = "NetworkError";
  }
}

/** The server did not answer within the timeout. */
export class TimeoutError extends TesseraError {
  readonly timeout: number;
  constructor(timeout: number) {
    super("timeout", `Tessera: no answer within ${timeout} ms`);
    this.name = "TimeoutError";
    this.timeout = timeout;
  }
}

interface Issue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly code?: string;
  readonly expected?: unknown;
  readonly minimum?: unknown;
  readonly maximum?: unknown;
  readonly origin?: unknown;
}

/** zod/mini ships no message locale (it would cost bundle size), so generic issues are worded here. */
function describe(issue: Issue): string {
  if (issue.message && issue.message !== "Invalid input") return issue.message;
  switch (issue.code) {
    case "invalid_type":
      return `expected ${String(issue.expected)}`;
    case "too_small":
      return `${issue.origin === "string" ? "length" : "value"} must be at least ${String(issue.minimum)}`;
    case "too_big":
      return `${issue.origin === "string" ? "length" : "value"} must be at most ${String(issue.maximum)}`;
    case "unrecognized_keys":
      return "unknown option";
    default:
      return "invalid value";
  }
}

/** Turns a zod issue list into one ArgumentError naming the first offending field. */
export function argumentErrorFrom(root: string, issues: readonly Issue[]): ArgumentError {
  const first = issues[0];
  const path = first ? first.path.map(String).join(".") : "";
  return new ArgumentError(path ? `${root}.${path}` : root, first ? describe(first) : "invalid value");
}

// The hosted service's browser client, by its documented names (docs/migrating.md): `new Rupt({ clientId, on_logout })`
// and `rupt.evaluate.login|signup|access(…)`, mapped onto Tessera's browser SDK (sdk/src/browser/tessera.ts). Served
// as its own script, /sdk/v3/rupt.js (window.Rupt), so that Tessera's own SDK keeps only its own names. Every option is
// checked: one this layer does not know rejects with an UnknownOptionError naming it, never silently does nothing.
import { ArgumentError, refuseUnknownOptions, UnknownOptionError } from "../browser/errors.js";
import type { DeviceOptions, EvaluateOptions, TesseraOptions } from "../browser/options.js";
import { type EvaluateResult, Tessera } from "../browser/tessera.js";
import { domainUrl } from "./domain.js";

export interface RuptOptions {
  /** The environment's public client id (`client_id` is the older spelling). */
  clientId?: string;
  client_id?: string;
  /** Your Tessera server, a bare host or a URL; default: where this script was loaded from. */
  domain?: string;
  /** Called when this device was logged out by the account's owner (`on_current_device_logout` is the older name). */
  on_logout?: () => void;
  on_current_device_logout?: () => void;
  /** Where the hosted challenge returns the browser when the policy names no success URL (default: this page). */
  success_url?: string;
  baseUrl?: string;
  consent?: TesseraOptions["consent"];
  heartbeat?: TesseraOptions["heartbeat"];
  timeout?: number;
  retries?: number;
}

export interface RuptEvaluateOptions {
  user?: string;
  /** The older name of `user`. */
  account?: string;
  email?: string;
  phone?: string;
  metadata?: Record<string, unknown>;
  /** Your backend's signature of `user` (docs/migrating.md "Account sharing"): with it this browser counts at once. */
  user_token?: string;
  success_url?: string;
  auto_challenge?: boolean;
}

const OPTIONS = [
  "clientId",
  "client_id",
  "domain",
  "on_logout",
  "on_current_device_logout",
  "success_url",
  "baseUrl",
  "consent",
  "heartbeat",
  "timeout",
  "retries",
] as const;
const EVALUATE = ["user", "account", "email", "phone", "metadata", "user_token", "success_url", "auto_challenge"] as const;
/** Options of the service that Tessera handles elsewhere: refused with where they went. */
const MOVED: Record<string, string> = {
  groups: "set by your backend: updateUser({ user, groups })",
  redirect_urls: "on the policy's challenge (success_url, signup_url)",
};

export interface Evaluate {
  (action: string, options?: RuptEvaluateOptions): Promise<EvaluateResult>;
  login(options?: RuptEvaluateOptions): Promise<EvaluateResult>;
  signup(options?: RuptEvaluateOptions): Promise<EvaluateResult>;
  access(options?: RuptEvaluateOptions): Promise<EvaluateResult>;
}

/** Said once per page: the one behaviour a migrating team cannot see from its code (docs/migrating.md). */
let vouchingNoticeShown = false;
const VOUCHING_NOTICE =
  "Tessera (Rupt compatibility): evaluate.access counts this browser among the user's devices only once your backend " +
  "vouched for it: a login or sign-up evaluation on it that your backend consumed, a passed challenge, or a user_token " +
  'passed here. See docs/migrating.md, "Account sharing".';

function one(a: unknown, b: unknown, names: string): unknown {
  if (a !== undefined && b !== undefined && a !== b) throw new ArgumentError(names, "two spellings of one option disagree");
  return a ?? b;
}

/** The service's option names as Tessera's, or the error every call rejects with. */
function mapOptions(options: RuptOptions): { tessera: TesseraOptions; successUrl?: string } {
  if (!options || typeof options !== "object") throw new ArgumentError("options", "expected an object");
  refuseUnknownOptions("options", options, OPTIONS, MOVED);
  const { clientId, client_id, domain, on_logout, on_current_device_logout, success_url, baseUrl, ...rest } = options;
  if (domain !== undefined && baseUrl !== undefined) throw new ArgumentError("options.domain", "give domain or baseUrl, not both");
  const id = one(clientId, client_id, "options.clientId");
  const logout = one(on_logout, on_current_device_logout, "options.on_logout");
  const url = baseUrl ?? (typeof domain === "string" ? domainUrl(domain) : domain);
  const tessera = {
    ...rest,
    clientId: id,
    ...(url !== undefined ? { baseUrl: url } : {}),
    ...(logout !== undefined ? { on_logout: logout } : {}),
  } as TesseraOptions;
  return success_url === undefined ? { tessera } : { tessera, successUrl: success_url };
}

export class Rupt {
  static readonly ArgumentError = ArgumentError;
  static readonly UnknownOptionError = UnknownOptionError;
  static readonly ApiError = Tessera.ApiError;
  static readonly NetworkError = Tessera.NetworkError;
  static readonly TimeoutError = Tessera.TimeoutError;

  readonly evaluate: Evaluate;
  readonly #tessera: Tessera;
  readonly #successUrl: string | undefined;
  readonly #error: ArgumentError | undefined;

  constructor(options: RuptOptions) {
    // As Tessera's own SDK: a bad option is kept and every call rejects with it; a constructor that throws breaks the page.
    let mapped: ReturnType<typeof mapOptions> | undefined;
    try {
      mapped = mapOptions(options);
    } catch (error) {
      this.#error = error instanceof ArgumentError ? error : new ArgumentError("options", String(error));
    }
    this.#tessera = new Tessera(mapped?.tessera ?? { clientId: "unused" });
    this.#successUrl = mapped?.successUrl;
    const evaluate = ((action: string, opts?: RuptEvaluateOptions) => this.#evaluate(action, opts)) as Evaluate;
    evaluate.login = (opts) => this.#evaluate("login", opts);
    evaluate.signup = (opts) => this.#evaluate("signup", opts);
    evaluate.access = (opts) => this.#evaluate("access", opts);
    this.evaluate = evaluate;
  }

  attach(options?: DeviceOptions) {
    return this.#ready().then(() => this.#tessera.attach(options));
  }

  detach(options?: DeviceOptions) {
    return this.#ready().then(() => this.#tessera.detach(options));
  }

  getFingerprint() {
    return this.#ready().then(() => this.#tessera.getFingerprint());
  }

  getHash() {
    return this.#ready().then(() => this.#tessera.getHash());
  }

  async #ready(): Promise<void> {
    if (this.#error) throw this.#error;
  }

  async #evaluate(action: string, options: RuptEvaluateOptions | undefined): Promise<EvaluateResult> {
    await this.#ready();
    const where = `evaluate.${["login", "signup", "access"].includes(action) ? action : "custom"}`;
    if (options !== undefined && (typeof options !== "object" || options === null)) throw new ArgumentError(where, "expected an object");
    refuseUnknownOptions(where, options, EVALUATE, MOVED);
    const { account, user, success_url, ...rest } = options ?? {};
    const name = one(user, account, `${where}.user`);
    const returnUrl = success_url ?? this.#successUrl;
    const mapped: EvaluateOptions = {
      ...rest,
      ...(name !== undefined ? { user: name as string } : {}),
      ...(returnUrl !== undefined ? { return_url: returnUrl } : {}),
    };
    if (action === "access" && name !== undefined && rest.user_token === undefined && !vouchingNoticeShown) {
      vouchingNoticeShown = true;
      console.warn(VOUCHING_NOTICE);
    }
    if (action === "login") return this.#tessera.evaluate.login(mapped);
    if (action === "signup") return this.#tessera.evaluate.signup(mapped);
    if (action === "access") return this.#tessera.evaluate.access(mapped);
    return this.#tessera.evaluate(action, mapped);
  }
}

export default Rupt;
export { ApiError, ArgumentError, NetworkError, TimeoutError, UnknownOptionError } from "../browser/errors.js";

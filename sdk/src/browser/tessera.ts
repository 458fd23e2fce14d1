// The browser SDK's one public class (docs/sdk.md): `new Tessera({ clientId })`, a few verbs, typed
// errors. Every verb is async and validates its arguments first, so nothing ever throws synchronously into
// the page and nothing is collected before the app calls a verb.
import * as z from "zod/mini";
import {
  ClientDeviceResponse,
  ClientHeartbeatResponse,
  FingerprintResponse,
  HashResponse,
  HEARTBEAT_MIN_INTERVAL_MS,
  IdentifyResponse,
} from "../contract/device.js";
import { ClientEvaluateResponse } from "../contract/evaluation.js";
import {
  ApiError,
  ArgumentError,
  argumentErrorFrom,
  NetworkError,
  refuseUnknownOptions,
  TesseraError,
  TimeoutError,
  UnknownOptionError,
} from "./errors.js";
import { ActionName, Consent, DeviceOptions, EvaluateOptions, KNOWN, TesseraOptions } from "./options.js";
import { collectSignals } from "./signals.js";
import { type Post, transport } from "./transport.js";
import { visitorToken } from "./visitor-token.js";

export interface EvaluateResult {
  evaluation_id: string;
  redirect?: string;
}

export interface Evaluate {
  /** Evaluates a custom action (letters, digits, _ . : -). Never navigates. */
  (action: string, options?: EvaluateOptions): Promise<EvaluateResult>;
  login(options?: EvaluateOptions): Promise<EvaluateResult>;
  signup(options?: EvaluateOptions): Promise<EvaluateResult>;
  /** Navigates to the challenge by itself when one is needed, unless `auto_challenge: false`. */
  access(options?: EvaluateOptions): Promise<EvaluateResult>;
}

// The origin the script tag was loaded from is the default server: read now, while the script is executing
// (document.currentScript is null later and in modules).
const scriptOrigin = ((): string | undefined => {
  try {
    const src = (document.currentScript as HTMLScriptElement | null)?.src;
    return src ? new URL(src).origin : undefined;
  } catch {
    return undefined;
  }
})();

// Defaults in one place: one attempt plus two retries, 10 s each.
const DEFAULT_TIMEOUT = 10_000;
const DEFAULT_RETRIES = 2;
// Twice a minute: a kicked device hears of it within a minute even when one beat is lost.
const DEFAULT_HEARTBEAT_MS = 30_000;

interface Setup {
  post: Post;
  clientId: string;
  onLogout: (() => void) | undefined;
  /** Milliseconds between heartbeats; 0: none. */
  heartbeat: number;
}

const MAX_HEARTBEAT_MS = 600_000;

/**
 * The `heartbeat` option as milliseconds between beats (0: none): true, or { interval } from 2 s (what the server's
 * limit per browser lets through, contract/device.ts) to 10 min.
 */
function heartbeatMs(option: unknown): number {
  if (!option) return 0;
  const interval = option === true ? undefined : (option as { interval?: unknown }).interval;
  if (interval === undefined) return DEFAULT_HEARTBEAT_MS;
  if (typeof interval === "number" && interval >= HEARTBEAT_MIN_INTERVAL_MS && interval <= MAX_HEARTBEAT_MS) return interval;
  throw new ArgumentError(
    "options.heartbeat.interval",
    `expected ${HEARTBEAT_MIN_INTERVAL_MS} to ${MAX_HEARTBEAT_MS} (ms): a beat every ${HEARTBEAT_MIN_INTERVAL_MS / 1000} s at most`,
  );
}

function parse<T extends z.ZodMiniType>(schema: T, value: unknown, name: string): z.infer<T> {
  const result = z.safeParse(schema, value);
  if (!result.success) throw argumentErrorFrom(name, result.error.issues);
  return result.data;
}

export class Tessera {
  static readonly TesseraError = TesseraError;
  static readonly ArgumentError = ArgumentError;
  static readonly UnknownOptionError = UnknownOptionError;
  static readonly ApiError = ApiError;
  static readonly NetworkError = NetworkError;
  static readonly TimeoutError = TimeoutError;

  readonly evaluate: Evaluate;
  #setup: Setup | ArgumentError;
  #consent: Consent = "full";
  #loggedOut = false;
  #heartbeat: ReturnType<typeof setInterval> | undefined;

  constructor(options: TesseraOptions) {
    // A bad option is kept and every verb rejects with it: a constructor that throws would break the page.
    try {
      refuseUnknownOptions("options", options, KNOWN.options);
      const o = parse(TesseraOptions, options, "options");
      if (o.on_logout !== undefined && typeof o.on_logout !== "function") throw new ArgumentError("options.on_logout", "expected function");
      this.#consent = o.consent ?? "full";
      const baseUrl = (o.baseUrl ?? scriptOrigin ?? location.origin).replace(/\/+$/, "");
      this.#setup = {
        post: transport({ baseUrl, timeout: o.timeout ?? DEFAULT_TIMEOUT, retries: o.retries ?? DEFAULT_RETRIES }),
        clientId: o.clientId,
        onLogout: o.on_logout as (() => void) | undefined,
        heartbeat: heartbeatMs(o.heartbeat),
      };
    } catch (error) {
      this.#setup = error instanceof ArgumentError ? error : new ArgumentError("options", String(error));
    }
    const evaluate = ((action: string, opts?: EvaluateOptions) => this.#evaluate(action, opts, false)) as Evaluate;
    evaluate.login = (opts) => this.#evaluate("login", opts, false);
    evaluate.signup = (opts) => this.#evaluate("signup", opts, false);
    evaluate.access = (opts) => this.#evaluate("access", opts, true);
    this.evaluate = evaluate;
  }

  /** Changes the consent level for the next calls, e.g. after the user accepts or declines a banner. */
  setConsent(consent: Consent): void {
    const result = z.safeParse(Consent, consent);
    if (result.success) this.#consent = result.data;
    else console.error(argumentErrorFrom("consent", result.error.issues).message);
  }

  /** Attaches this device to the user (account sharing; docs/challenges.md). */
  attach(options?: DeviceOptions): Promise<z.infer<typeof ClientDeviceResponse>> {
    return this.#device("attach", "devices/attach", options, ClientDeviceResponse);
  }

  /** Detaches this device from the user, e.g. on logout. */
  detach(options?: DeviceOptions): Promise<z.infer<typeof ClientDeviceResponse>> {
    return this.#device("detach", "devices/detach", options, ClientDeviceResponse);
  }

  /** The server-computed fingerprint of this browser: `{ fingerprint_id, confidence }`. */
  getFingerprint(): Promise<z.infer<typeof FingerprintResponse>> {
    return this.#device("getFingerprint", "fingerprint", undefined, FingerprintResponse);
  }

  /** This browser's fingerprint hash now and the one it had before: `[current, last]`. */
  getHash(): Promise<z.infer<typeof HashResponse>> {
    return this.#device("getHash", "hash", undefined, HashResponse);
  }

  /** Legacy identification: an id the customer's backend completes with `/v2/proj/identification/:id/complete`. */
  identify(options?: DeviceOptions): Promise<z.infer<typeof IdentifyResponse>> {
    return this.#device("identify", "identify", options, IdentifyResponse);
  }

  async #evaluate(action: string, options: EvaluateOptions, navigates: boolean): Promise<EvaluateResult> {
    const setup = this.#ready();
    const name = parse(ActionName, action, "action");
    const where = `evaluate.${navigates ? "access" : name}`;
    refuseUnknownOptions(where, options, KNOWN.evaluate);
    const opts = parse(EvaluateOptions, options, where) ?? {};
    const signals = await collectSignals(this.#consent);
    const { auto_challenge, return_url, ...user } = opts;
    // The page the hosted challenge returns to, unless the policy names one (challenges/return-urls.ts on the server).
    if (return_url) signals.url = return_url;
    const { data, logout } = await setup.post(
      `v3/client/evaluate/${encodeURIComponent(name)}`,
      { client_id: setup.clientId, ...user, signals },
      ClientEvaluateResponse,
    );
    if (logout) this.#logout(setup);
    else this.#beat(setup);
    const result: EvaluateResult = { evaluation_id: data.evaluation_id };
    if (data.redirect) result.redirect = data.redirect;
    // A device just logged out (kicked) is not sent on to a challenge: the app's on_logout decides where it goes.
    if (navigates && data.redirect && auto_challenge !== false && !logout) location.assign(data.redirect);
    return result;
  }

  async #device<T extends z.ZodMiniType>(verb: string, path: string, options: DeviceOptions, schema: T): Promise<z.infer<T>> {
    const setup = this.#ready();
    refuseUnknownOptions(verb, options, KNOWN.device);
    const opts = parse(DeviceOptions, options, verb) ?? {};
    const signals = await collectSignals(this.#consent);
    const { data, logout } = await setup.post(`v3/client/${path}`, { client_id: setup.clientId, ...opts, signals }, schema);
    if (logout) this.#logout(setup);
    else this.#beat(setup);
    return data;
  }

  #ready(): Setup {
    if (this.#setup instanceof ArgumentError) throw this.#setup;
    return this.#setup;
  }

  /**
   * Starts the heartbeat, if asked for, once a verb has run (nothing is sent before the app calls the SDK). Each beat
   * names the visitor token only; a hidden page skips its beats and beats again when shown.
   */
  #beat(setup: Setup): void {
    if (!setup.heartbeat || this.#heartbeat !== undefined || this.#loggedOut) return;
    const beat = () => {
      if (document.visibilityState === "hidden" || this.#loggedOut) return;
      const body = { client_id: setup.clientId, visitor_token: visitorToken(this.#consent === "full") };
      setup.post("v3/client/heartbeat", body, ClientHeartbeatResponse).then(
        ({ data }) => data.logout && this.#logout(setup),
        // A lost beat: the next one (or the next evaluation) tells.
        () => undefined,
      );
    };
    this.#heartbeat = setInterval(beat, setup.heartbeat);
    document.addEventListener("visibilitychange", beat);
  }

  #logout(setup: Setup): void {
    // Once per page: the server repeats `logout` on every call from a detached device.
    if (this.#loggedOut) return;
    this.#loggedOut = true;
    clearInterval(this.#heartbeat);
    try {
      setup.onLogout?.();
    } catch (error) {
      console.error("Tessera: on_logout threw", error);
    }
  }
}

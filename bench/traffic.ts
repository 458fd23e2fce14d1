// Realistic, varied client-evaluate traffic: thousands of users and browsers, each browser with its own
// FingerprintJS-like components, visitor token, user agent and usual IP; most requests come from returning
// browsers (some with a little drift: a new browser version, another screen), the rest from new ones.

/** xorshift32: the bench's own sequence (kept as it was, so figures compare across versions). */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

const USER_AGENTS = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
  "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
  "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
];
const TIMEZONES = ["Europe/Paris", "America/New_York", "Asia/Tokyo", "Europe/London", "America/Sao_Paulo", "Australia/Sydney"];
const SCREENS = [
  [1920, 1080],
  [2560, 1440],
  [1440, 900],
  [390, 844],
  [1366, 768],
];
const ACTIONS = ["login", "login", "login", "signup", "access", "access"];

interface Browser {
  seed: number;
  user: string;
  token: string;
  ua: string;
  ip: string;
  tz: string;
  screen: number[];
}

export interface TrafficOptions {
  /** Distinct end users among the returning traffic. */
  users: number;
  /** Distinct browsers among the returning traffic (several per user). */
  browsers: number;
  /** Share of requests from a browser never seen before. */
  newShare: number;
  /** Share of returning requests with a small component drift. */
  driftShare: number;
  /** The sequence of requests (which browser, which action, new browsers); the pool of returning browsers is fixed. */
  seed: number;
}

/** What a server needs to take this traffic: rate limits out of the way, proxies trusted (X-Forwarded-For varies the client IP). */
export const BENCH_ENV = { TRUST_PROXY: "1", CLIENT_RATE_LIMIT: "1000000000", CLIENT_ID_RATE_LIMIT: "1000000000", LOG_LEVEL: "warn" };

export const DEFAULT_TRAFFIC: TrafficOptions = { users: 4000, browsers: 6000, newShare: 0.3, driftShare: 0.05, seed: 42 };
/** The pool of returning browsers is the same whatever the sequence seed: `pool()` introduces them to a server. */
const POOL_SEED = 42;

export interface ClientRequest {
  action: string;
  body: string;
  headers: Record<string, string>;
}

export class Traffic {
  private readonly random: () => number;
  private readonly browsers: Browser[] = [];
  private fresh = 0;

  constructor(
    private readonly clientId: string,
    private readonly opts: TrafficOptions = DEFAULT_TRAFFIC,
  ) {
    this.random = rng(POOL_SEED);
    for (let i = 0; i < opts.browsers; i++) this.browsers.push(this.browser(i, `user_${i % opts.users}`));
    this.random = rng(opts.seed);
  }

  private pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.random() * xs.length)]!;
  }

  private ip(): string {
    const r = this.random;
    return `${1 + Math.floor(r() * 222)}.${Math.floor(r() * 256)}.${Math.floor(r() * 256)}.${1 + Math.floor(r() * 254)}`;
  }

  private browser(seed: number, user: string): Browser {
    return {
      seed,
      user,
      token: `vt_${seed.toString(36).padStart(8, "0")}_${Math.floor(this.random() * 1e9).toString(36)}`,
      ua: this.pick(USER_AGENTS),
      ip: this.ip(),
      tz: this.pick(TIMEZONES),
      screen: this.pick(SCREENS),
    };
  }

  private components(b: Browser, drift: boolean): Record<string, { value: unknown }> {
    const v: Record<string, unknown> = {
      platform: b.ua.includes("Windows") ? "Win32" : b.ua.includes("Mac") ? "MacIntel" : "Linux x86_64",
      timezone: b.tz,
      languages: [["en-US", "en"]],
      screenResolution: drift ? [b.screen[0]! + 1, b.screen[1]] : b.screen,
      hardwareConcurrency: 2 + (b.seed % 4) * 2,
      deviceMemory: 8,
      colorDepth: 24,
      vendor: "Google Inc.",
      canvas: { winding: true, geometry: `g${b.seed % 997}`, text: `t${b.seed}` },
      fonts: ["Arial", "Courier New", "Helvetica", `Font${b.seed % 53}`],
      audio: 124.04347527516074 + (b.seed % 7) / 1000,
      webGlBasics: { renderer: `ANGLE (GPU ${b.seed % 31})`, vendor: "Google Inc." },
      plugins: [{ name: "PDF Viewer", description: "Portable Document Format" }],
      touchSupport: { maxTouchPoints: b.ua.includes("Mobile") ? 5 : 0, touchEvent: false, touchStart: false },
      cookiesEnabled: true,
      osCpu: drift ? "Linux x86_64 (drift)" : undefined,
    };
    const out: Record<string, { value: unknown }> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = { value: x };
    return out;
  }

  /** The next request: a returning browser (its user, token, usual IP; sometimes another IP) or a brand-new one. */
  next(): ClientRequest {
    let b: Browser;
    let ip: string;
    const isNew = this.random() < this.opts.newShare;
    if (isNew) {
      // Unique across sequences: a new browser of one run is not a returning one in the next.
      b = this.browser(this.opts.browsers + this.opts.seed * 1_000_000 + this.fresh, `new_user_${this.opts.seed}_${this.fresh}`);
      b.token = `vt_new_${this.opts.seed}_${this.fresh}`;
      this.fresh++;
      ip = b.ip;
    } else {
      b = this.pick(this.browsers);
      ip = this.random() < 0.1 ? this.ip() : b.ip;
    }
    const drift = !isNew && this.random() < this.opts.driftShare;
    return this.request(b, ip, this.pick(ACTIONS), isNew, drift);
  }

  /** One login per browser of the pool, in order: what a server has seen of its returning visitors before a run. */
  *pool(): Generator<ClientRequest> {
    for (const b of this.browsers) yield this.request(b, b.ip, "login", false, false);
  }

  /**
   * Requests of one action from the returning browsers of the pool, each from its usual IP without drift, in the
   * sequence's order: a signed-in user's page views (`access`) or logins once `pool()`'s logins were consumed.
   */
  session(action: string): () => ClientRequest {
    return () => {
      const b = this.pick(this.browsers);
      return this.request(b, b.ip, action, false, false);
    };
  }

  /** Requests of one action from never-seen browsers, each its own new user (new device, new fingerprint, new account). */
  newcomers(action: string): () => ClientRequest {
    return () => {
      const b = this.browser(this.opts.browsers + this.opts.seed * 1_000_000 + this.fresh, `new_user_${this.opts.seed}_${this.fresh}`);
      b.token = `vt_new_${this.opts.seed}_${this.fresh}`;
      this.fresh++;
      return this.request(b, b.ip, action, true, false);
    };
  }

  private request(b: Browser, ip: string, action: string, isNew: boolean, drift: boolean): ClientRequest {
    const body = {
      client_id: this.clientId,
      user: action === "signup" && !isNew ? `${b.user}_alt` : b.user,
      email: `${b.user}@example.com`,
      metadata: { plan: b.seed % 3 ? "free" : "pro" },
      signals: {
        components: this.components(b, drift),
        visitor_token: b.token,
        automation: { webdriver: false },
        url: `https://app.example.com/${action}`,
        timezone: b.tz,
      },
    };
    return {
      action,
      body: JSON.stringify(body),
      headers: { "content-type": "application/json", "user-agent": b.ua, "x-forwarded-for": ip, origin: "http://localhost:3000" },
    };
  }
}

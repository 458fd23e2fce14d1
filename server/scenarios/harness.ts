// The scenario suite's harness: an in-process server on a fresh embedded store with a simulated clock, real public
// IPs picked from the shipped geolocation data (residential per country, hosting, VPN, Tor), and the client and
// backend calls of a customer's site — evaluate, consume what it lets in, complete a challenge with the code from the
// development outbox — all through the real HTTP API.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { geo, initGeo, readNetworkList } from "../src/geo/index.js";
import { createServices } from "../src/services.js";
import { rng } from "./population/random.js";

export const MIN = 60_000;
export const HOUR = 60 * MIN;
export const DAY = 24 * HOUR;

export interface Outcome {
  id: string;
  verdict: string;
  policy?: string;
  fingerprint?: { id: string; confidence: number };
  device?: string;
  checks?: Record<string, unknown>;
  challenge?: { id: string; type?: string };
}

export interface ClientCall {
  action: string;
  userAgent: string;
  components: Record<string, unknown>;
  token?: string;
  timezone?: string;
  ip: string;
  user?: string;
  email?: string;
  automation?: Record<string, unknown>;
  /** The SDK's window and screen sizes (signals.window). */
  window?: Record<string, number>;
}

export async function startHarness(start: number) {
  // ---- simulated clock: the in-process server reads Date.now() -------------------------------------------------
  const realNow = Date.now.bind(Date);
  let clock = start;
  Date.now = () => clock;

  // ---- IP pools from the shipped data ----------------------------------------------------------------------------
  initGeo();
  const residential = new Map<string, string[]>();
  const byKind: Record<"hosting" | "vpn", string[]> = { hosting: [], vpn: [] };
  // Mobile carriers per country: ASN -> addresses of its pool (a phone leaves through any of them).
  const carriers = new Map<string, Map<number, string[]>>();
  // VPN and hosting providers' ASNs with several exits (a corporate VPN gateway's exits sit in one provider's ASN).
  const providers = new Map<number, string[]>();
  const ipr = rng(7);
  const WANTED = ["US", "GB", "FR", "DE", "ES", "BR", "JP", "IN", "AU"];
  for (const c of WANTED) residential.set(c, []);
  for (let i = 0; i < 600_000 && WANTED.some((c) => (residential.get(c)?.length ?? 0) < 400); i++) {
    const ip = [1 + Math.floor(ipr() * 222), Math.floor(ipr() * 256), Math.floor(ipr() * 256), 1 + Math.floor(ipr() * 250)].join(".");
    const g = geo().lookup(ip);
    const list = g.country_code ? residential.get(g.country_code) : undefined;
    if (!list || g.network || g.tor || g.longitude === undefined || list.length >= 400) continue;
    list.push(ip);
  }
  for (const line of readNetworkList().split("\n")) {
    const m = /^(\d+\.\d+\.\d+)\.\d+-\S+ AS(\d+)/.exec(line);
    if (!m) continue;
    const ip = `${m[1]}.${10 + Math.floor(ipr() * 200)}`;
    const g = geo().lookup(ip);
    if (g.network === "hosting" && byKind.hosting.length < 300 && ipr() < 0.05) byKind.hosting.push(ip);
    if (g.network === "vpn" && byKind.vpn.length < 300 && ipr() < 0.1) byKind.vpn.push(ip);
    if (g.network === "mobile" && g.country_code && WANTED.includes(g.country_code) && g.asn !== undefined) {
      const byAsn = carriers.get(g.country_code) ?? new Map<number, string[]>();
      carriers.set(g.country_code, byAsn);
      const pool = byAsn.get(g.asn) ?? [];
      byAsn.set(g.asn, pool);
      if (pool.length < 40) pool.push(ip);
    }
    if ((g.network === "vpn" || g.network === "hosting") && g.asn !== undefined) {
      const pool = providers.get(g.asn) ?? [];
      providers.set(g.asn, pool);
      if (pool.length < 12) pool.push(ip);
    }
  }
  const torIps = Array.from({ length: 50 }, (_, i) => `185.220.101.${i + 1}`);

  // ---- the server ---------------------------------------------------------------------------------------------------
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tessera-scenarios-"));
  const config = loadConfig({
    NODE_ENV: "test",
    LOG_LEVEL: "silent",
    DATA_DIR: dir,
    BOOTSTRAP_PROJECT: "0",
    WORKERS: "0",
    TRUST_PROXY: "1",
    CLIENT_RATE_LIMIT: "1000000",
    CLIENT_ID_RATE_LIMIT: "1000000",
    CHALLENGE_IP_RATE_LIMIT: "1000000",
  });
  const services = await createServices(config);
  const app = await buildApp(services, { logger: false });
  await app.ready();
  const timings: number[] = [];

  /** A project (one customer application): its development environment's client id and secret header. */
  async function project(name: string) {
    const p = await services.repos.projects.create(name);
    return {
      envId: p.environments.development.id,
      clientId: p.environments.development.client_id,
      auth: { authorization: `Bearer ${p.environments.development.secret}` },
    };
  }
  type Project = Awaited<ReturnType<typeof project>>;

  async function read(p: Project, id: string): Promise<Outcome> {
    const ev = (await app.inject({ method: "GET", url: `/v3/evaluations/${id}`, headers: p.auth })).json();
    return {
      id,
      verdict: ev.verdict,
      policy: ev.policy?.name,
      fingerprint: ev.fingerprint,
      device: ev.device,
      checks: ev.checks,
      challenge: ev.challenge,
    };
  }

  async function client(p: Project, c: ClientCall): Promise<Outcome> {
    const t0 = performance.now();
    const wire = Object.fromEntries(Object.entries(c.components).map(([k, v]) => [k, { value: v }]));
    const res = await app.inject({
      method: "POST",
      url: `/v3/client/evaluate/${c.action}`,
      headers: { "user-agent": c.userAgent, "x-forwarded-for": c.ip },
      payload: {
        client_id: p.clientId,
        ...(c.user ? { user: c.user } : {}),
        ...(c.email ? { email: c.email } : {}),
        signals: {
          components: wire,
          ...(c.token ? { visitor_token: c.token } : {}),
          ...(c.timezone ? { timezone: c.timezone } : {}),
          ...(c.automation ? { automation: c.automation } : {}),
          ...(c.window ? { window: c.window } : {}),
        },
      },
    });
    timings.push(performance.now() - t0);
    if (res.statusCode !== 200) throw new Error(`client evaluate ${res.statusCode}: ${res.body}`);
    return read(p, res.json().evaluation_id);
  }

  async function server(p: Project, action: string, body: Record<string, unknown>): Promise<Outcome> {
    const t0 = performance.now();
    const res = await app.inject({ method: "POST", url: `/v3/evaluate/${action}`, headers: p.auth, payload: body });
    timings.push(performance.now() - t0);
    if (res.statusCode !== 200) throw new Error(`server evaluate ${res.statusCode}: ${res.body}`);
    const ev = res.json();
    return { id: ev.id, verdict: ev.verdict, policy: ev.policy?.name, checks: ev.checks };
  }

  /** The customer's backend consumes the evaluation of an action it let through. */
  async function consume(p: Project, id: string): Promise<void> {
    await app.inject({ method: "POST", url: `/v3/evaluations/${id}/consume`, headers: p.auth });
  }

  /** The user passes the challenge: a code by email from the development outbox, verified, completed. */
  async function completeChallenge(p: Project, challenge: string): Promise<boolean> {
    const sent = await app.inject({
      method: "POST",
      url: `/v3/challenges/${challenge}/send`,
      headers: p.auth,
      payload: { channel: "email" },
    });
    if (sent.statusCode !== 200) return false;
    const outbox = (await app.inject({ method: "GET", url: "/v3/dev/outbox", headers: p.auth })).json() as {
      data: { challenge_id: string; body: string }[];
    };
    const code = /\b(\d{6})\b/.exec(outbox.data.find((m) => m.challenge_id === challenge)?.body ?? "")?.[1];
    if (!code) return false;
    const verified = await app.inject({ method: "POST", url: `/v3/challenges/${challenge}/verify`, headers: p.auth, payload: { code } });
    if (verified.statusCode !== 200) return false;
    const done = await app.inject({ method: "POST", url: `/v3/challenges/${challenge}/complete`, headers: p.auth });
    return done.statusCode === 200;
  }

  return {
    app,
    services,
    timings,
    residential,
    byKind,
    carriers,
    providers,
    torIps,
    now: () => clock,
    setClock(at: number) {
      if (at > clock) clock = at;
    },
    advance(ms: number) {
      clock += ms;
    },
    project,
    client,
    server,
    consume,
    completeChallenge,
    async close() {
      Date.now = realNow;
      await app.close();
      await services.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type Harness = Awaited<ReturnType<typeof startHarness>>;
export type Project = Awaited<ReturnType<Harness["project"]>>;

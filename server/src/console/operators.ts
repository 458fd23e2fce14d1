// Console operators (docs/console.md): created by the CLI with a role on some projects (or on all, for the installation's
// administrators), they choose their password through a one-time sign-in link and then sign in with it. Sessions are
// random tokens in an HttpOnly cookie, kept hashed. Sign-in attempts are limited per (email, address) and per address
// through the shared limiter (every instance counts together on PostgreSQL).
import { createHash, randomBytes } from "node:crypto";
import type { ConsoleProject, ConsoleSession, Role } from "@tessera/sdk/contract";
import type { Config } from "../config.js";
import { ApiError, badRequest, rateLimited } from "../errors.js";
import { perIpKey } from "../geo/ip.js";
import type { RateLimiter } from "../rate-limit/limiter.js";
import type { OperatorRow } from "../store/operators.js";
import type { Repos } from "../store/repos.js";
import { now } from "../time.js";
import { checkPasswordStrength } from "./password-strength.js";
import { hashPassword, verifyPassword } from "./passwords.js";
import { strongest } from "./roles.js";

/** A session lasts a working day; signing in again is cheap, a stolen cookie ages out. */
export const SESSION_TTL_MS = 12 * 3600 * 1000;
/** The installation setting holding the public URL the server last started on (server.ts writes it). */
export const SERVED_URL_SETTING = "served_url";
/** A sign-in link is for the person it was made for, today. */
export const LINK_TTL_MS = 24 * 3600 * 1000;
/**
 * Sign-in attempts in SIGN_IN_WINDOW_MS, per address (IPv6 by /64) whatever the email, and per email from one address: a
 * person mistypes a few times, a guesser needs millions. Never per email alone: failures from one address must not
 * lock the operator out from another (a stranger who knows the email could otherwise keep it locked out for good).
 * A guesser spread over many addresses still gets 10 tries per address per window against a password the strength
 * check made worth at least 10^8 guesses (console/password-strength.ts).
 */
export const SIGN_IN_IP_LIMIT = 20;
export const SIGN_IN_EMAIL_LIMIT = 10;
const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const newToken = () => randomBytes(32).toString("base64url");
const EMAIL = /^[^@\s]+@[^@\s]+$/;

export interface SignedIn {
  /** The session token for the cookie. */
  token: string;
  operator: OperatorRow;
}

/** An operator's roles: on every project (installation administrators) and on each project granted. */
export interface OperatorAccess {
  allProjects: Role | null;
  projects: { id: string; role: Role }[];
}

/** Which of an operator's roles a command acts on: the projects named, its all-projects role, or (neither) all. */
export interface OperatorScope {
  projectIds: string[];
  allProjects: boolean;
}

export interface OperatorChange {
  operator: OperatorRow;
  before: OperatorAccess;
  /** Null when the operator was removed. */
  after: OperatorAccess | null;
}

export class OperatorsService {
  constructor(
    private readonly repos: Repos,
    private readonly config: Config,
    private readonly limiter: RateLimiter,
  ) {}

  /**
   * Where an operator opens a sign-in link (the token rides in the fragment, which no server log sees). The CLI runs in
   * another process than the server, often without its PORT or PUBLIC_URL: without PUBLIC_URL the link points at the
   * URL the server last served on (SERVED_URL_SETTING, written at each start), else at this process's own default.
   */
  async linkUrl(token: string): Promise<string> {
    const base = this.config.PUBLIC_URL
      ? this.config.publicUrl
      : ((await this.repos.projects.getSetting(SERVED_URL_SETTING)) ?? this.config.publicUrl);
    return `${base}/console/#/welcome?token=${token}`;
  }

  /**
   * Creates the operator (or updates an existing one's grants) with `role` on the projects, or on every project with
   * `allProjects`, and answers a fresh one-time sign-in link (which replaces any earlier one).
   */
  async create(opts: { email: string; role: Role; projectIds: string[]; allProjects: boolean }) {
    const email = opts.email.trim().toLowerCase();
    if (!EMAIL.test(email)) throw badRequest("email must be an email address", "email");
    if (!opts.allProjects && opts.projectIds.length === 0) throw badRequest("name at least one project, or all projects", "project");
    for (const id of opts.projectIds) if (!(await this.repos.operators.projectExists(id))) throw badRequest(`No project ${id}`, "project");
    const { operator, created } = await this.repos.operators.ensure(email);
    if (opts.allProjects) await this.repos.operators.setAllProjectsRole(operator.id, opts.role);
    for (const id of opts.projectIds) await this.repos.operators.grant(operator.id, id, opts.role);
    return { operator, created, link: await this.issueLink(operator.id) };
  }

  /**
   * A fresh one-time sign-in link (replacing any earlier one), which also ends the operator's sessions: a new link is
   * asked for when a password is forgotten or may be known to someone else, and a session opened with that password
   * must not outlive it.
   */
  async issueLink(operatorId: string): Promise<string> {
    const token = newToken();
    await this.repos.transaction(async () => {
      await this.repos.operators.setLink(operatorId, sha256(token), now() + LINK_TTL_MS);
      await this.repos.operators.deleteSessionsOf(operatorId);
    });
    return await this.linkUrl(token);
  }

  /** The operator's roles: on every project (an installation administrator) and per project. */
  async access(operator: OperatorRow): Promise<OperatorAccess> {
    return {
      allProjects: (operator.all_projects_role ?? null) as Role | null,
      projects: (await this.repos.operators.grants(operator.id)).map((g) => ({ id: g.project_id, role: g.role as Role })),
    };
  }

  private async existing(email: string): Promise<OperatorRow> {
    const operator = await this.repos.operators.findByEmail(email);
    if (!operator) throw badRequest(`No operator ${email.trim().toLowerCase()} (tessera operators create makes one)`, "email");
    return operator;
  }

  /** The projects named must be ones the operator has a role on (create gives new ones). */
  private checkScope(operator: OperatorRow, access: OperatorAccess, scope: OperatorScope): void {
    for (const id of scope.projectIds)
      if (!access.projects.some((p) => p.id === id))
        throw badRequest(`${operator.email} has no role on project ${id} (tessera operators create adds projects)`, "project");
    if (scope.allProjects && !access.allProjects) throw badRequest(`${operator.email} has no all-projects role`, "all-projects");
  }

  /**
   * Refuses a change that would leave the installation without an administrator (an owner of every project, present
   * and future): a project created next would have no owner in the console until someone with shell access noticed.
   * The CLI can always make another administrator; the refusal only keeps an installation from drifting there.
   */
  private async refuseLastAdministrator(operator: OperatorRow, what: string): Promise<void> {
    if (operator.all_projects_role !== "owner") return;
    if ((await this.repos.operators.countAllProjects("owner")) > 1) return;
    throw new ApiError(
      409,
      "conflict",
      `cannot ${what} ${operator.email}: it is the installation's last administrator (owner of every project); make another one first with tessera operators create --email … --role owner --all-projects`,
    );
  }

  /**
   * Removes the operator (no scope), or takes it off the projects named, or takes its all-projects role away; every
   * session of the operator ends either way. Answers what it had before and has after.
   */
  async remove(email: string, scope: OperatorScope): Promise<OperatorChange> {
    const operator = await this.existing(email);
    const before = await this.access(operator);
    this.checkScope(operator, before, scope);
    const whole = !scope.allProjects && scope.projectIds.length === 0;
    if (whole) await this.refuseLastAdministrator(operator, "remove");
    else if (scope.allProjects) await this.refuseLastAdministrator(operator, "take every project from");
    await this.repos.transaction(async () => {
      if (whole) return this.repos.operators.remove(operator.id);
      if (scope.allProjects) await this.repos.operators.setAllProjectsRole(operator.id, null);
      await this.repos.operators.revoke(operator.id, scope.projectIds);
      await this.repos.operators.deleteSessionsOf(operator.id);
    });
    const after = whole ? null : await this.access(operator);
    return { operator, before, after };
  }

  /**
   * Gives the operator `role` on the projects named, or on its all-projects role, or (no scope) wherever it has one;
   * every session of the operator ends, so that its next one has the new rights from the start.
   */
  async setRole(email: string, role: Role, scope: OperatorScope): Promise<OperatorChange> {
    const operator = await this.existing(email);
    const before = await this.access(operator);
    this.checkScope(operator, before, scope);
    const whole = !scope.allProjects && scope.projectIds.length === 0;
    const projectIds = whole ? before.projects.map((p) => p.id) : scope.projectIds;
    const allProjects = whole ? before.allProjects !== null : scope.allProjects;
    if (allProjects && role !== "owner") await this.refuseLastAdministrator(operator, `make ${role}`);
    await this.repos.transaction(async () => {
      if (allProjects) await this.repos.operators.setAllProjectsRole(operator.id, role);
      for (const id of projectIds) await this.repos.operators.grant(operator.id, id, role);
      await this.repos.operators.deleteSessionsOf(operator.id);
    });
    return { operator, before, after: await this.access(operator) };
  }

  private async limit(keys: { key: string; limit: number }[]): Promise<void> {
    const results = await this.limiter.hitMany(keys.map((k) => ({ ...k, windowMs: SIGN_IN_WINDOW_MS })));
    const wait = Math.max(0, ...results.filter((r) => !r.allowed).map((r) => r.retryAfterMs));
    if (wait > 0) throw rateLimited(wait / 1000, "Too many sign-in attempts: wait before trying again");
  }

  /** Email and password → a new session; one answer for an unknown email and a wrong password. */
  async signIn(email: string, password: string, ip: string): Promise<SignedIn> {
    const normal = email.trim().toLowerCase();
    const address = perIpKey(ip);
    await this.limit([
      { key: `console-sign-in-ip:${address}`, limit: SIGN_IN_IP_LIMIT },
      // Both parts escaped: no email can name another pair's counter.
      { key: `console-sign-in:${encodeURIComponent(normal)}:${encodeURIComponent(address)}`, limit: SIGN_IN_EMAIL_LIMIT },
    ]);
    const operator = await this.repos.operators.findByEmail(normal);
    if (!(await verifyPassword(password, operator?.password_hash)) || !operator)
      throw new ApiError(401, "unauthorized", "Wrong email or password");
    return { token: await this.startSession(operator.id), operator };
  }

  /** A one-time link's token and a new password → the password is set, the link spent, earlier sessions ended. */
  async useLink(token: string, password: string, ip: string): Promise<SignedIn> {
    await this.limit([{ key: `console-sign-in-ip:${perIpKey(ip)}`, limit: SIGN_IN_IP_LIMIT }]);
    const at = now();
    const hash = sha256(token);
    const operator = await this.repos.operators.findByLink(hash, at);
    if (!operator) throw new ApiError(401, "unauthorized", "This sign-in link is not valid or has expired: ask for a new one");
    // Refused before the link is spent: the operator tries another password with the same link.
    await checkPasswordStrength(password, operator.email);
    const passwordHash = await hashPassword(password);
    if (!(await this.repos.operators.usePasswordLink(operator.id, hash, passwordHash, at)))
      throw new ApiError(401, "unauthorized", "This sign-in link was already used");
    await this.repos.operators.deleteSessionsOf(operator.id);
    return { token: await this.startSession(operator.id), operator };
  }

  private async startSession(operatorId: string): Promise<string> {
    const token = newToken();
    await this.repos.operators.createSession(sha256(token), operatorId, now() + SESSION_TTL_MS);
    return token;
  }

  async fromToken(token: string | undefined): Promise<OperatorRow | undefined> {
    if (!token || token.length > 200) return undefined;
    return this.repos.operators.session(sha256(token), now());
  }

  async signOut(token: string | undefined): Promise<void> {
    if (token) await this.repos.operators.deleteSession(sha256(token));
  }

  /** The operator's role on a project, if any (the stronger of an all-projects role and a grant). */
  async roleFor(operator: OperatorRow, projectId: string): Promise<Role | undefined> {
    const grant = (await this.repos.operators.grants(operator.id)).find((g) => g.project_id === projectId);
    return strongest((operator.all_projects_role ?? undefined) as Role | undefined, grant?.role as Role | undefined);
  }

  /** What the console shows after sign-in: the operator and the projects it may open, with its role on each. */
  async session(operator: OperatorRow): Promise<ConsoleSession> {
    const grants = new Map((await this.repos.operators.grants(operator.id)).map((g) => [g.project_id, g.role as Role]));
    const all = (operator.all_projects_role ?? undefined) as Role | undefined;
    const projects = await this.repos.operators.projects(all ? "all" : [...grants.keys()]);
    const out: ConsoleProject[] = [];
    for (const p of projects) {
      const role = strongest(all, grants.get(p.id));
      if (role) out.push({ ...p, role });
    }
    return { operator: { id: operator.id, email: operator.email }, projects: out };
  }
}

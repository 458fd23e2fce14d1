// The real server as a child process (`node bin/tessera.mjs serve`), for tests and the bench that need what
// in-process injection cannot show: SIGKILL and restart, several instances on one database, real sockets.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { ensureBuilt, isBundle } from "../../scripts/build.mjs";

export const ROOT = path.resolve(import.meta.dirname, "..", "..");
const BIN = path.join(ROOT, "bin", "tessera.mjs");
const run = promisify(execFile);

/** Environment every spawned server and CLI call starts from: quiet, no bootstrap project, loopback only. */
function baseEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const inherited: NodeJS.ProcessEnv = {};
  // Only what a process needs to run; the parent's own Tessera settings (DATA_DIR, DATABASE_URL…) must not leak in.
  for (const k of ["PATH", "HOME", "TMPDIR", "LANG", "NODE_OPTIONS"]) if (process.env[k] !== undefined) inherited[k] = process.env[k];
  return { ...inherited, NODE_ENV: "test", LOG_LEVEL: "warn", BOOTSTRAP_PROJECT: "0", HOST: "127.0.0.1", ...env };
}

/** A port that was free a moment ago (the kernel picks it); the server binds it right after. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface CliProject {
  id: string;
  clientId: string;
  secret: string;
}

/** `tessera projects create --json` on the given store: the development client id and secret. */
export async function createProjectCli(env: Record<string, string>, name = "x"): Promise<CliProject> {
  const { stdout } = await run(process.execPath, [BIN, "projects", "create", "--name", name, "--json"], { cwd: ROOT, env: baseEnv(env) });
  const p = JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as {
    id: string;
    environments: { development: { client_id: string; secret: string } };
  };
  return { id: p.id, clientId: p.environments.development.client_id, secret: p.environments.development.secret };
}

/** Runs `tessera <args>` on the given store; answers its standard output. */
export async function runCli(env: Record<string, string>, args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [BIN, ...args], { cwd: ROOT, env: baseEnv(env) });
  return stdout;
}

export interface ServerProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** Everything the process wrote to stderr (warnings and errors at LOG_LEVEL=warn). */
  stderr(): string;
  /** What the process printed on stdout (the tail). */
  stdout(): string;
  /** Resolves with the exit code or signal once the process has ended. */
  exited: Promise<number | string>;
  /** SIGKILL: no shutdown hook runs, like a crash or `kill -9`. */
  kill(): Promise<number | string>;
  /** SIGTERM and wait for the clean shutdown. */
  stop(): Promise<number | string>;
}

export interface StartOptions {
  /** Extra node flags for the server (e.g. --cpu-prof). */
  nodeArgs?: string[];
  /** How long to wait for /readyz before giving up (default 60 s: a start takes seconds on a loaded 2-core machine). */
  readyTimeoutMs?: number;
  /** Start without PUBLIC_URL (by default it is set to the server's own loopback address). */
  withoutPublicUrl?: boolean;
}

/**
 * `tessera serve` builds the bundles it serves when they are missing or stale: do it here once, under a lock, so that
 * test files starting servers side by side do not build into the same folders at the same time.
 */
export async function assetsBuiltOnce(): Promise<void> {
  const lock = path.join(ROOT, ".tmp", "assets-build.lock");
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  for (let i = 0; i < 3000; i++) {
    try {
      fs.mkdirSync(lock);
    } catch {
      // Another test file is building; a lock older than 5 minutes is left over from a killed run.
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 300_000) fs.rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    try {
      ensureBuilt({ only: isBundle, log: () => {} });
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
    return;
  }
  throw new Error("timed out waiting for the asset build lock");
}

/** Starts `tessera serve` on a free loopback port and resolves once /readyz answers 200. */
export async function startServer(env: Record<string, string>, opts: StartOptions = {}): Promise<ServerProcess> {
  await assetsBuiltOnce();
  const port = Number(env.PORT ?? (await freePort()));
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), BIN, "serve"], {
    cwd: ROOT,
    env: baseEnv({ ...env, PORT: String(port), ...(opts.withoutPublicUrl ? {} : { PUBLIC_URL: url }) }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (d: Buffer) => {
    out = (out + d.toString()).slice(-20_000);
  });
  let err = "";
  child.stderr?.on("data", (d: Buffer) => {
    // Keep the tail only: a long run must not grow the test's memory.
    err = (err + d.toString()).slice(-20_000);
  });
  const exited = new Promise<number | string>((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown")));
  let dead = false;
  void exited.then(() => {
    dead = true;
  });

  const deadline = Date.now() + (opts.readyTimeoutMs ?? 60_000);
  for (;;) {
    if (dead) throw new Error(`server exited before it was ready:\n${err}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server not ready on ${url} in time:\n${err}`);
    }
    try {
      const r = await fetch(`${url}/readyz`);
      if (r.status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  const signal = (sig: NodeJS.Signals) => {
    if (!dead) child.kill(sig);
    return exited;
  };
  return { url, port, child, stderr: () => err, stdout: () => out, exited, kill: () => signal("SIGKILL"), stop: () => signal("SIGTERM") };
}

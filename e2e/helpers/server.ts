// Starts the real Tessera server as a child process (`node bin/tessera.mjs serve`) on a free port with a temp
// DATA_DIR, after creating a project through the CLI, and stops it again.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const ROOT = new URL("../../", import.meta.url).pathname;
const CLI = join(ROOT, "bin/tessera.mjs");
const run = promisify(execFile);

export interface Project {
  id: string;
  name: string;
  environments: { development: { client_id: string; secret: string }; production: { client_id: string; secret: string } };
}

export interface RunningServer {
  url: string;
  port: number;
  dataDir: string;
  project: Project;
  /** Output so far, for failure messages. */
  log(): string;
  stop(): Promise<void>;
  /** Starts again on the same port and data after `stop()` (for the "server is down" scenarios); `env` adds to or
   * overrides the environment from now on (e.g. a short code lifetime). */
  start(env?: Record<string, string>): Promise<void>;
  dispose(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "tessera-e2e-data-"));
  const port = await freePort();
  let baseEnv: Record<string, string | undefined> = {
    ...process.env,
    NODE_ENV: "development",
    DATA_DIR: dataDir,
    PORT: String(port),
    LOG_LEVEL: "warn",
    ...env,
  };
  const { stdout } = await run(process.execPath, [CLI, "projects", "create", "--name", "e2e", "--json"], { cwd: ROOT, env: baseEnv });
  const project = JSON.parse(stdout.slice(stdout.indexOf("{"))) as Project;
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  let output = "";

  async function start(extra: Record<string, string> = {}): Promise<void> {
    baseEnv = { ...baseEnv, ...extra };
    const proc = spawn(process.execPath, [CLI, "serve"], { cwd: ROOT, env: baseEnv, stdio: ["ignore", "pipe", "pipe"] });
    child = proc;
    proc.stdout?.on("data", (d) => {
      output += d;
    });
    proc.stderr?.on("data", (d) => {
      output += d;
    });
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}:\n${output}`);
      const ok = await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`server did not become healthy:\n${output}`);
  }

  async function stop(): Promise<void> {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once("exit", resolve));
    proc.kill("SIGTERM");
    const timer = setTimeout(() => proc.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  }

  await start();
  return {
    url,
    port,
    dataDir,
    project,
    log: () => output,
    stop,
    start,
    dispose: async () => {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

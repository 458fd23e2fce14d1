// `npm start` in development (README "Quick start"; docs/console.md): the first start creates a first console operator and
// prints its one-time sign-in link beside the project's keys; the link lets it choose a password and sign in.
// A production first start creates no operator.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { freePort, ROOT } from "./server-process.js";

async function firstStart(nodeEnv: "development" | "production") {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tessera-bootstrap-"));
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(ROOT, "bin", "tessera.mjs"), "serve"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: nodeEnv,
      DATA_DIR: dir,
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d) => {
    out += d;
  });
  child.stderr.on("data", (d) => {
    out += d;
  });
  const deadline = Date.now() + 60_000;
  while (!out.includes("Tessera ") && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
  return {
    out,
    port,
    async stop() {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe("console bootstrap", () => {
  it("a development first start prints the first operator's one-time link beside the keys, and the link signs it in", async () => {
    const s = await firstStart("development");
    try {
      expect(s.out).toMatch(/development secret: +sk_test_/);
      const link = /one-time sign-in link[^:]*: (\S+)/.exec(s.out)?.[1];
      expect(link, s.out).toMatch(new RegExp(`^http://localhost:${s.port}/console/#/welcome\\?token=[\\w-]{40,}$`));
      expect(s.out.indexOf("development secret")).toBeLessThan(s.out.indexOf("one-time sign-in link"));
      const token = new URL(link!.replace("#/welcome?", "?")).searchParams.get("token");
      const res = await fetch(`http://127.0.0.1:${s.port}/console/api/link`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: `http://127.0.0.1:${s.port}` },
        body: JSON.stringify({ token, password: "a long enough password" }),
      });
      expect(res.status).toBe(200);
      const session = (await res.json()) as { operator: { email: string }; projects: { role: string }[] };
      expect(session.operator.email).toBe("admin@tessera.local");
      expect(session.projects.map((p) => p.role)).toEqual(["owner"]);
    } finally {
      await s.stop();
    }
  });

  it("a production first start creates no operator", async () => {
    const s = await firstStart("production");
    try {
      // No operator's link (the production warnings may name sign-in links in general: PUBLIC_URL unset).
      expect(s.out).not.toMatch(/one-time sign-in link|#\/welcome\?token=/);
    } finally {
      await s.stop();
    }
  });
});

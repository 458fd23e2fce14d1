// What an evaluation leaves to the old generation, whatever the machine's load: the real pipeline (embedded store, group
// commit) called in this process one evaluation at a time, with no HTTP and no load generator between, after the
// bench's pool of returning browsers was seen once. It runs itself again under --trace-gc-nvp and prints, for the
// measured evaluations, the bytes scavenges promoted and those allocated per evaluation, and the collections per
// 1,000 (docs/decisions/young-generation.md). app.inject is not used: light-my-request's objects are themselves
// promoted (about 9 KiB per request on a bare Fastify route), which would hide the server's own.
// npx tsx bench/promotion.ts [evaluations=5000] [node flags…, e.g. --max-semi-space-size=32]
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ClientEvaluateRequest } from "@tessera/sdk/contract";
import { loadConfig } from "../server/src/config.js";
import type { EvaluationInput } from "../server/src/pipeline/context.js";
import { createServices } from "../server/src/services.js";
import { BENCH_ENV, DEFAULT_TRAFFIC, Traffic } from "./traffic.js";

const N = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 5000);
const START = "[promotion] start";
const END = "[promotion] end";

if (!process.env.PROMOTION_CHILD) {
  const flags = process.argv.slice(2).filter((a) => a.startsWith("--"));
  const run = spawnSync(
    process.execPath,
    ["--experimental-async-context-frame", "--trace-gc-nvp", ...flags, "--import", "tsx", fileURLToPath(import.meta.url), String(N)],
    { env: { ...process.env, PROMOTION_CHILD: "1" }, encoding: "utf8", maxBuffer: 1 << 30 },
  );
  if (run.status !== 0) {
    console.error(run.stderr);
    process.exit(1);
  }
  console.log(summary(run.stdout, N));
} else {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tessera-promotion-"));
  const services = await createServices(
    loadConfig({ NODE_ENV: "test", DATA_DIR: dir, BOOTSTRAP_PROJECT: "0", PUBLIC_URL: "http://localhost:8080", ...BENCH_ENV }),
  );
  const dev = (await services.repos.projects.create("promotion")).environments.development;
  const traffic = new Traffic(dev.client_id, { ...DEFAULT_TRAFFIC });
  const pool = traffic.pool();
  // As the client route builds it (routes/client.ts), the body parsed by the contract.
  const evaluate = async () => {
    const t = pool.next().value ?? traffic.next();
    const body = ClientEvaluateRequest.parse(JSON.parse(t.body));
    const env = (await services.environments.byClientId(body.client_id))!;
    await services.pipeline.evaluate({
      env,
      action: t.action,
      source: "client",
      ip: t.headers["x-forwarded-for"],
      userAgent: t.headers["user-agent"],
      headers: t.headers,
      user: body.user,
      identityVerified: false,
      email: body.email,
      phone: body.phone,
      metadata: body.metadata,
      signals: body.signals,
      at: Date.now(),
    } as EvaluationInput);
  };
  for (let i = 0; i < DEFAULT_TRAFFIC.browsers + 3000; i++) await evaluate();
  console.log(START);
  for (let i = 0; i < N; i++) await evaluate();
  console.log(END);
  await services.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

/** The main thread's collections between the two marks (the checkpointing thread's isolate prints its own lines). */
function summary(out: string, evaluations: number): string {
  const lines = out.split("\n");
  const isolate = (l: string) => /^\[\d+:(0x[0-9a-f]+)\]/.exec(l)?.[1];
  const counts = new Map<string, number>();
  for (const l of lines) if (/ gc=\w+ /.test(l)) counts.set(isolate(l)!, (counts.get(isolate(l)!) ?? 0) + 1);
  const main = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
  const measured = lines.slice(lines.indexOf(START) + 1, lines.indexOf(END)).filter((l) => / gc=\w+ /.test(l) && isolate(l) === main);
  const field = (l: string, k: string) => Number(new RegExp(` ${k}=([\\d.]+)`).exec(l)?.[1] ?? 0);
  const sum = (k: string) => measured.reduce((a, l) => a + field(l, k), 0);
  const per1000 = (kind: string) => ((measured.filter((l) => l.includes(` gc=${kind} `)).length / evaluations) * 1000).toFixed(2);
  const kib = (b: number) => (b / evaluations / 1024).toFixed(2);
  return `${evaluations} evaluations: promoted ${kib(sum("promoted"))} KiB and allocated ${kib(sum("allocated"))} KiB per evaluation; scavenges ${per1000("s")}, mark-compacts ${per1000("mc")} per 1000`;
}

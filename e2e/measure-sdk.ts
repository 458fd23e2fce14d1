// Measures the script-tag SDK (closing note): bundle size gzipped, and in headless Chromium the median
// time from navigation start to `evaluation_id` beside the median time to FingerprintJS's own `get()` result on
// an equivalent page (same server, same browser profile). Run: npx tsx e2e/measure-sdk.ts [loads=10]
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { launchBrowser } from "./helpers/browser.js";
import { startServer } from "./helpers/server.js";

const LOADS = Number(process.argv[2] ?? 10);
const ROOT = new URL("../", import.meta.url).pathname;
const bundle = readFileSync(`${ROOT}sdk/dist/tessera.js`);
const fpUmd = readFileSync(`${ROOT}node_modules/@fingerprintjs/fingerprintjs/dist/fp.min.js`);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function main() {
  const server = await startServer();
  const clientId = server.project.environments.development.client_id;
  const pages: Record<string, string> = {
    "/sdk.html": `<!doctype html><script src="${server.url}/sdk/v3/tessera.js"></script><script src="/sdk.js"></script>`,
    "/sdk.js": `new Tessera({ clientId: ${JSON.stringify(clientId)} }).evaluate.login({ user: "acct_measure" })
  .then((r) => { const api = performance.getEntriesByType("resource").find((e) => e.name.includes("/v3/client/evaluate/"));
    const script = performance.getEntriesByType("resource").find((e) => e.name.endsWith("/tessera.js"));
    window.done = { ms: performance.now(), id: r.evaluation_id, api: api ? api.responseEnd - api.startTime : -1, script: script ? script.responseEnd : -1 }; },
    (e) => { window.done = { error: String(e) }; });`,
    "/fp.html": `<!doctype html><script src="/fp.min.js"></script><script src="/fp.js"></script>`,
    "/fp.js": `FingerprintJS.load({ monitoring: false }).then((a) => a.get())
  .then((r) => { window.done = { ms: performance.now(), id: r.visitorId }; }, (e) => { window.done = { error: String(e) }; });`,
  };
  const site = createServer((req, res) => {
    const path = req.url ?? "/";
    if (path === "/fp.min.js") {
      res.writeHead(200, { "content-type": "application/javascript" });
      return res.end(fpUmd);
    }
    const body = pages[path];
    if (!body) {
      res.writeHead(404);
      return res.end();
    }
    res.writeHead(200, { "content-type": path.endsWith(".js") ? "application/javascript" : "text/html" });
    res.end(body);
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  const siteUrl = `http://localhost:${(site.address() as AddressInfo).port}`;

  const browser = await launchBrowser();
  const results: Record<"sdk" | "fp", number[]> = { sdk: [], fp: [] };
  // Breakdown of the SDK page: the evaluate request (preflight + POST, as resource timing sees it) and the
  // moment the script finished downloading.
  const api: number[] = [];
  const script: number[] = [];
  try {
    // One warm-up of each (first JIT, HTTP cache fill), then alternate so drift hits both equally.
    for (let i = -1; i < LOADS; i++) {
      for (const kind of ["sdk", "fp"] as const) {
        const page = await browser.newPage();
        await page.goto(`${siteUrl}/${kind}.html`);
        await page.waitForFunction(() => (window as unknown as { done?: unknown }).done, undefined, { timeout: 30_000 });
        type Done = { ms?: number; error?: string; api?: number; script?: number };
        const done = (await page.evaluate(() => (window as unknown as { done: Done }).done)) as Done;
        await page.close();
        if (done.error || done.ms === undefined) throw new Error(`${kind}: ${done.error}`);
        if (i >= 0) results[kind].push(done.ms);
        if (i >= 0 && kind === "sdk") {
          api.push(done.api ?? -1);
          script.push(done.script ?? -1);
        }
      }
    }
  } finally {
    await browser.close();
    site.close();
    await server.dispose();
  }
  const sdk = median(results.sdk);
  const fp = median(results.fp);
  console.log(
    JSON.stringify(
      {
        bundle_bytes: bundle.length,
        bundle_gzip_bytes: gzipSync(bundle).length,
        bundle_gzip_kib: +(gzipSync(bundle).length / 1024).toFixed(1),
        loads: LOADS,
        median_ms_page_load_to_evaluation_id: Math.round(sdk),
        median_ms_page_load_to_fingerprintjs_get: Math.round(fp),
        overhead_ms: Math.round(sdk - fp),
        median_ms_evaluate_request: Math.round(median(api)),
        median_ms_sdk_script_loaded: Math.round(median(script)),
        samples_ms: { sdk: results.sdk.map(Math.round), fingerprintjs: results.fp.map(Math.round) },
      },
      null,
      2,
    ),
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

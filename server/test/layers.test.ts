// The layers of the server (docs/architecture.md "Layers"), held by reading the sources' imports: dependency-cruiser
// resolves every import of server/src, sdk/src, console/src and challenge-app/src (type-only imports included: a type
// names what a module knows), and each rule below fails with the import that broke it and why the rule exists.
// Like server/test/transactions.test.ts for the transaction convention: a convention enforced by a test on the code.
import fs from "node:fs";
import path from "node:path";
import { cruise, type ICruiseResult, type IForbiddenRuleType } from "dependency-cruiser";
import { beforeAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SRC = "server/src/";

/**
 * The server's layers, top to bottom: a module may import its own layer and the layers below it, never one above.
 * Every folder and top-level file of server/src is in exactly one (a new one fails "every module has a layer").
 */
const LAYERS = [
  {
    name: "entry",
    why: "the processes: the server and the command line put everything together",
    holds: ["server.ts", "cli.ts", "cli/", "startup-errors.ts"],
  },
  {
    name: "http",
    why: "routes and the Fastify application: authentication, parsing, status codes and headers; they call services",
    holds: ["app.ts", "auth.ts", "error-handler.ts", "observe.ts", "request-limits.ts", "serialize.ts", "routes/", "demo/"],
  },
  {
    name: "container",
    why: "services.ts builds every service in dependency order; no service sees it, each is given what it needs",
    holds: ["services.ts"],
  },
  {
    name: "services",
    why: "the operations of the product; they use the pipeline, the repositories and each other",
    holds: ["domain/", "challenges/", "webhooks/", "console/", "jobs/", "delivery/", "import/", "identity-verification/", "rate-limit/"],
  },
  {
    name: "pipeline",
    why: "an evaluation, top to bottom, and what it is made of: signals, facts, checks, risks, policies, the fingerprint and geo data, and the wire objects it answers with",
    holds: ["pipeline/", "signals/", "facts/", "checks/", "risks/", "policies/", "fingerprint/", "geo/", "wire/"],
  },
  {
    name: "store",
    why: "the platform (database, transactions, prepared statements, migrations) and the repositories' queries",
    holds: ["store/"],
  },
  {
    name: "shared",
    why: "leaves every layer uses: configuration, the log, the error classes, ids, time, caches, secrets, metrics",
    holds: ["config.ts", "log.ts", "errors.ts", "ids.ts", "time.ts", "caches.ts", "secrets.ts", "metrics.ts"],
  },
] as const;

type Layer = (typeof LAYERS)[number];

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** A regular expression for the modules of these folders ("x/") and files ("x.ts") of server/src. */
const modulesOf = (holds: readonly string[]) =>
  `^${literal(SRC)}(?:${holds.map((h) => (h.endsWith("/") ? literal(h) : `${literal(h)}$`)).join("|")})`;
const layerOf = (file: string): Layer | undefined =>
  LAYERS.find((l) => l.holds.some((h) => (h.endsWith("/") ? file.startsWith(SRC + h) : file === SRC + h)));

/** Layer i imports nothing of the layers above it. */
const layerRules: IForbiddenRuleType[] = LAYERS.slice(1).map((layer, i) => {
  const above = LAYERS.slice(0, i + 1);
  return {
    name: `layer ${layer.name}`,
    comment: `the ${layer.name} layer (${layer.why}) imports only itself and the layers below it, never ${above.map((l) => l.name).join(", ")}`,
    severity: "error",
    from: { path: modulesOf(layer.holds) },
    to: { path: modulesOf(above.flatMap((l) => l.holds)) },
  };
});

const HTTP = modulesOf(LAYERS[1].holds);

const rules: IForbiddenRuleType[] = [
  ...layerRules,
  {
    name: "routes reach the store through services",
    comment:
      "the HTTP layer imports no repository: a route calls a service, which calls the repositories (types, and the store's failure classes and readiness probe, are fine)",
    severity: "error",
    from: { path: HTTP },
    to: { path: `^${SRC}store/`, pathNot: `^${SRC}store/(?:errors|readiness)\\.ts$`, dependencyTypesNot: ["type-only"] },
  },
  {
    name: "routes run no rules",
    comment: "the HTTP layer runs no detection or policy code: deciding is the services' and the pipeline's (types are fine)",
    severity: "error",
    from: { path: HTTP },
    to: { path: `^${SRC}(?:signals|facts|checks|risks|policies)/`, dependencyTypesNot: ["type-only"] },
  },
  {
    name: "detection does not know its orchestration",
    comment:
      "signals, facts, checks, risks and policies are steps that pipeline/decide.ts and pipeline/evaluate.ts call in order; a step never calls back into them",
    severity: "error",
    from: { path: `^${SRC}(?:signals|facts|checks|risks|policies)/` },
    to: { path: `^${SRC}pipeline/(?:evaluate|decide)\\.ts$` },
  },
  {
    name: "only the store speaks SQL",
    comment: "Kysely is the store's: nothing outside server/src/store builds a query or names its types",
    severity: "error",
    from: { path: `^${SRC}`, pathNot: `^${SRC}store/` },
    to: { path: "(^|/)node_modules/kysely/" },
  },
  {
    name: "migrations are frozen",
    comment:
      "a migration copies what it computes (as it was when it shipped) and imports only Kysely, Node's built-ins, types, and other migrations (frozen too): live code that changes would change what a later migration run writes",
    severity: "error",
    from: { path: `^${SRC}store/migrations/`, pathNot: `^${SRC}store/migrations/index\\.ts$` },
    to: { dependencyTypesNot: ["type-only", "core"], pathNot: [`^${SRC}store/migrations/`, "(^|/)node_modules/kysely/"] },
  },
  {
    name: "no import cycle",
    comment: "modules import each other in one direction only (a cycle through types counts: it ties the modules' meanings)",
    severity: "error",
    from: {},
    to: { circular: true },
  },
];

let result: ICruiseResult;

beforeAll(async () => {
  const { output } = await cruise(["server/src", "sdk/src", "console/src", "challenge-app/src"], {
    baseDir: ROOT,
    validate: true,
    ruleSet: { forbidden: rules },
    // Type-only imports count: a module that names another's type depends on what it means.
    tsPreCompilationDeps: true,
    doNotFollow: { path: "node_modules" },
    exclude: { path: "\\.test\\.tsx?$" },
  });
  result = output as ICruiseResult;
}, 60_000);

/** Each violation of the rules named, as "from → to: why". */
function broken(...names: string[]): string[] {
  return result.summary.violations
    .filter((v) => names.includes(v.rule.name) && !v.cycle)
    .map((v) => `${v.from} → ${v.to}: ${rules.find((r) => r.name === v.rule.name)?.comment}`)
    .sort();
}

describe("the layers of the server", () => {
  it("reads the sources it holds to", () => {
    const files = result.modules.map((m) => m.source).filter((s) => s.startsWith(SRC));
    expect(files.length).toBeGreaterThan(200);
  });

  it("every module of server/src has a layer", () => {
    const modules = result.modules.map((m) => m.source).filter((s) => s.startsWith(SRC));
    // The folders too, so that a new one is given a layer before anything imports it.
    const entries = fs
      .readdirSync(path.join(ROOT, SRC), { withFileTypes: true })
      .filter((e) => e.isDirectory() || (e.name.endsWith(".ts") && !e.name.endsWith(".test.ts")))
      .map((e) => `${SRC}${e.name}${e.isDirectory() ? "/" : ""}`);
    const orphans = [...modules, ...entries].filter((f) => !layerOf(f.endsWith("/") ? `${f}x` : f));
    expect(orphans, "give each a layer in LAYERS (and docs/architecture.md)").toEqual([]);
    for (const l of LAYERS) for (const h of l.holds) expect(fs.existsSync(path.join(ROOT, SRC, h)), `${l.name}: ${h}`).toBe(true);
  });

  it("no module imports a layer above its own", () => {
    expect(broken(...layerRules.map((r) => r.name ?? ""))).toEqual([]);
  });

  it("routes reach repositories through services and run no rules", () => {
    expect(broken("routes reach the store through services", "routes run no rules")).toEqual([]);
  });

  it("routes hold no repository: no route or hook of the HTTP layer names `repos`", () => {
    const http = result.modules.map((m) => m.source).filter((s) => layerOf(s)?.name === "http" && s.endsWith(".ts"));
    const naming = http.filter((f) => /\brepos\b/.test(fs.readFileSync(path.join(ROOT, f), "utf8")));
    expect(naming, "move the repository calls into a service the route calls").toEqual([]);
  });

  it("detection does not call back into the pipeline's orchestration", () => {
    expect(broken("detection does not know its orchestration")).toEqual([]);
  });

  it("only the store imports Kysely", () => {
    expect(broken("only the store speaks SQL")).toEqual([]);
  });

  it("migrations import nothing but Kysely, Node's built-ins, types and other migrations", () => {
    const migrations = result.modules.filter((m) => m.source.startsWith(`${SRC}store/migrations/`));
    expect(migrations.length).toBeGreaterThan(20);
    expect(broken("migrations are frozen")).toEqual([]);
  });
});

describe("import cycles", () => {
  it("none in server/src, sdk/src, console/src or challenge-app/src", () => {
    // Every module on a cycle reports it, often by another path: the cycles that share a module are one knot, told as
    // its shortest cycle and the number of modules tied into it.
    const cycles = result.summary.violations
      .filter((v) => v.rule.name === "no import cycle" && v.cycle)
      .map((v) => [v.from, ...(v.cycle ?? []).map((c) => c.name)]);
    const knots: { modules: Set<string>; shortest: string[] }[] = [];
    for (const cycle of cycles) {
      const joined = knots.filter((k) => cycle.some((m) => k.modules.has(m)));
      const knot = { modules: new Set(cycle), shortest: cycle };
      for (const k of joined) {
        for (const m of k.modules) knot.modules.add(m);
        if (k.shortest.length < knot.shortest.length) knot.shortest = k.shortest;
        knots.splice(knots.indexOf(k), 1);
      }
      knots.push(knot);
    }
    expect(knots.map((k) => `${k.shortest.join(" → ")} (${k.modules.size} modules tied in all)`).sort()).toEqual([]);
  });
});

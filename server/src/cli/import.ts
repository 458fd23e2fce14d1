// `tessera import` (docs/migrating.md "Import"): users with their contacts, metadata and groups, lists and policies,
// from a JSON export shaped like the hosted service's objects or a CSV of users, into one environment. Validates every
// row first: an invalid row stops the import before anything is written (unless --skip-invalid), with one line per row
// naming the file, the row and the field. --dry-run reports what would change and keeps nothing. Progress goes to
// stderr, the report to stdout (--json for a script).
import { readFileSync } from "node:fs";
import { basename, extname } from "node:path";
import { ENVIRONMENTS, type Environment } from "@tessera/sdk/contract";
import { applyImport, type ImportReport } from "../import/apply.js";
import { ImportFileError, type ImportRows, parseJsonExport, parseUsersCsv } from "../import/formats.js";
import { type Command, UsageError } from "./options.js";

/** Bad input is a UsageError: the CLI's entry prints it in one line with the --help hint, exit code 2, as for every command. */
const usageError = (message: string): never => {
  throw new UsageError(message);
};

/** Reads every file named into one set of rows; a file that cannot be read is one line naming it. */
export function readImportFiles(files: string[], format?: string): ImportRows {
  const all: ImportRows = { users: [], lists: [], policies: [] };
  for (const file of files) {
    const kind = format ?? extname(file).slice(1).toLowerCase();
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      throw new ImportFileError(`${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    const name = basename(file);
    const rows = kind === "json" ? parseJsonExport(name, text) : kind === "csv" ? parseUsersCsv(name, text) : undefined;
    if (!rows) throw new ImportFileError(`${file}: say what it holds with a .json or .csv name, or --format json|csv`);
    all.users.push(...rows.users);
    all.lists.push(...rows.lists);
    all.policies.push(...rows.policies);
  }
  return all;
}

/** The invalid rows of a file, before anything is applied: one line each. */
function invalidRows(rows: ImportRows): string[] {
  return [...rows.users, ...rows.lists, ...rows.policies]
    .filter((r) => r.problem)
    .map((r) => `${r.where}: ${r.problem?.field}: ${r.problem?.message}`);
}

export function formatReport(report: ImportReport): string {
  const lines = [report.dryRun ? "Dry run: nothing was written. The import would make these changes:" : "Imported:"];
  for (const [kind, t] of Object.entries(report.totals))
    lines.push(`  ${kind.padEnd(8)} ${t.created} created, ${t.updated} updated, ${t.skipped} skipped, ${t.invalid} invalid`);
  if (report.listValuesAdded) lines.push(`  list values added: ${report.listValuesAdded}`);
  for (const r of report.rows)
    if (r.outcome === "invalid" || (r.outcome === "skipped" && r.reason !== "unchanged"))
      lines.push(`  ${r.outcome}: ${r.where}${r.id ? ` (${r.id})` : ""}: ${r.reason}`);
  return lines.join("\n");
}

export const importCommand: Command = {
  name: "import",
  usage: "FILE... --project PROJECT_ID --env ENV [--format json|csv] [--dry-run] [--skip-invalid] [--json]",
  summary: "Import users (contacts, metadata, groups), lists and policies from a JSON export or a CSV of users (docs/migrating.md)",
  details: [
    "  FILE            a .json export { users, lists, policies } or a .csv of users (id, email, phone, groups, metadata, metadata.KEY)",
    "  --dry-run       say what would change, write nothing",
    "  --skip-invalid  import the valid rows and list the invalid ones (default: any invalid row stops the import)",
    "  --json          the report as JSON on stdout (progress stays on stderr)",
    "Running it again changes nothing: rows already as the file has them are skipped.",
  ].join("\n"),
  options: {
    project: { type: "string" },
    env: { type: "string" },
    format: { type: "string" },
    "dry-run": { type: "boolean" },
    "skip-invalid": { type: "boolean" },
    json: { type: "boolean" },
  },
  run: async (services, { values, positionals }) => {
    if (positionals.length === 0) return usageError("name at least one FILE");
    const project = typeof values.project === "string" ? values.project : undefined;
    if (!project) return usageError("--project is required");
    const envName = values.env;
    if (typeof envName !== "string" || !(ENVIRONMENTS as readonly string[]).includes(envName))
      return usageError(`--env must be one of ${ENVIRONMENTS.join(", ")}`);
    const format = typeof values.format === "string" ? values.format : undefined;
    if (format !== undefined && format !== "json" && format !== "csv") return usageError("--format must be json or csv");
    let rows: ImportRows;
    try {
      rows = readImportFiles(positionals, format);
    } catch (e) {
      if (e instanceof ImportFileError) {
        console.error(`tessera import: ${e.message}`);
        return 1;
      }
      throw e;
    }
    const env = await services.repos.projects.environmentOf(project, envName as Environment);
    if (!env) return usageError(`no project ${project} (tessera projects list shows them)`);
    const invalid = invalidRows(rows);
    if (invalid.length && !values["skip-invalid"]) {
      for (const line of invalid) console.error(`tessera import: ${line}`);
      console.error(
        `tessera import: ${invalid.length} invalid row${invalid.length > 1 ? "s" : ""}: nothing was imported (--skip-invalid imports the others)`,
      );
      return 1;
    }
    const total = rows.users.length + rows.lists.length + rows.policies.length;
    let shown = 0;
    // Long imports say how far they are, on stderr so that --json output stays one document.
    const onProgress = (done: number) => {
      if (total < 1000 || done === shown) return;
      shown = done;
      process.stderr.write(`tessera import: ${done}/${total} rows\n`);
    };
    const dryRun = values["dry-run"] === true;
    let report = await applyImport(services, env, rows, { dryRun: true, onProgress });
    // Some rows are found invalid only when applied (a contact the delivery checks refuse, a policy the validator
    // refuses): the dry run finds them too, so that without --skip-invalid nothing is written when one is.
    const late = report.rows.filter((r) => r.outcome === "invalid");
    if (!dryRun && late.length && !values["skip-invalid"]) {
      for (const r of late) console.error(`tessera import: ${r.where}: ${r.reason}`);
      console.error(
        `tessera import: ${late.length} invalid row${late.length > 1 ? "s" : ""}: nothing was imported (--skip-invalid imports the others)`,
      );
      return 1;
    }
    if (!dryRun) report = await applyImport(services, env, rows, { onProgress });
    console.log(values.json ? JSON.stringify(report) : formatReport(report));
    return report.rows.some((r) => r.outcome === "invalid") && !values["skip-invalid"] ? 1 : 0;
  },
};

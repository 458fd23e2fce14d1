// The files `tessera import` reads (docs/migrating.md "Import"), parsed into rows that each know where they came from
// (`users.csv line 7`, `export.json users[3]`) and either their value or what is wrong with them, naming the field.
// - JSON, an export shaped like the hosted service's objects:
//     { "users":    [ { "id": "acct_42", "email", "phone", "metadata": {…}, "groups": [ { "id", "name", "metadata" } ] } ],
//       "lists":    [ { "id": "vip", "values": ["acct_42", …], "comment"?: "…", "ttl"?: seconds } ],
//       "policies": [ { "key"?, "name", "conditions", "verdict" | "action", "actions" | "event_types", … } ] }
//   A user's read-only fields of such an export (`rupt_id`, `service_id`, `createdAt`, `updatedAt`) are ignored; any
//   other unknown field makes the row invalid.
// - CSV of users, one per line after a header: `id` (required), `email`, `phone`, `groups` (group ids separated by
//   `;`), `metadata` (a JSON object) and `metadata.KEY` columns (one key each, its text as the value). An empty cell
//   sends nothing for that field.

import { Environment, Metadata, PolicyCreateRequest, UserId, UserUpdateRequest, VERDICTS, Verdict } from "@tessera/sdk/contract";
import { parse as parseCsv } from "csv-parse/sync";
import * as z from "zod/mini";

export interface UserImport {
  id: string;
  update: UserUpdateRequest;
}
export interface ListImport {
  id: string;
  values: string[];
  comment?: string;
  ttl?: number;
}
export type PolicyImport = PolicyCreateRequest & { key: string };

/** One row of a file: where it is, and its value or its problem (the field and what is wrong). */
export interface Row<T> {
  where: string;
  value?: T;
  problem?: { field: string; message: string };
}

export interface ImportRows {
  users: Row<UserImport>[];
  lists: Row<ListImport>[];
  policies: Row<PolicyImport>[];
}

/** A file that cannot be read as a whole (not JSON, a CSV without an id column): one line naming it. */
export class ImportFileError extends Error {}

const READ_ONLY_USER_FIELDS = ["rupt_id", "service_id", "createdAt", "updatedAt"];

const UserRow = z.strictObject({ id: UserId, ...UserUpdateRequest.shape });
const ListRow = z.strictObject({
  id: z.string().check(z.regex(/^[a-z0-9][a-z0-9_-]{0,63}$/i, "list id must be 1-64 letters, digits, _ -")),
  values: z.array(z.string().check(z.minLength(1), z.maxLength(320))).check(z.maxLength(1_000_000)),
  comment: z.optional(z.string().check(z.maxLength(500))),
  ttl: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(10 * 365 * 24 * 3600))),
});
/**
 * A policy as Tessera's API takes it, plus `key` (what makes a second import update it rather than add a copy; default
 * its name) and the hosted service's names for three fields: `type` for `environment`, `event_types` for `actions`,
 * `action` (`"challenge"` or `{ "type": "challenge" }`) for `verdict`.
 */
const PolicyRow = z.extend(PolicyCreateRequest, { key: z.optional(z.string().check(z.minLength(1), z.maxLength(200))) });
const ServiceAction = z.union([Verdict, z.object({ type: Verdict })]);

interface Issues {
  issues: readonly { path: readonly PropertyKey[]; message: string; code?: string; keys?: readonly string[] }[];
}

function problemOf(error: Issues): { field: string; message: string } {
  const issue = error.issues[0];
  const field = issue?.path.map(String).join(".") || "(row)";
  if (issue?.code === "unrecognized_keys") return { field: (issue.keys ?? []).join(", "), message: "unknown field" };
  return { field, message: issue?.message && issue.message !== "Invalid input" ? issue.message : `invalid ${field}` };
}

function row<T>(where: string, f: () => T | { problem: { field: string; message: string } }): Row<T> {
  const out = f();
  return out && typeof out === "object" && "problem" in out ? { where, problem: out.problem } : { where, value: out as T };
}

function userFrom(raw: unknown): UserImport | { problem: { field: string; message: string } } {
  const fields = raw && typeof raw === "object" && !Array.isArray(raw) ? { ...(raw as Record<string, unknown>) } : raw;
  if (fields && typeof fields === "object") for (const f of READ_ONLY_USER_FIELDS) delete (fields as Record<string, unknown>)[f];
  const parsed = z.safeParse(UserRow, fields);
  if (!parsed.success) return { problem: problemOf(parsed.error) };
  const { id, ...update } = parsed.data;
  return { id, update };
}

function policyFrom(raw: unknown): PolicyImport | { problem: { field: string; message: string } } {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return { problem: { field: "(row)", message: "expected an object" } };
  const { type, event_types, action, ...rest } = raw as Record<string, unknown>;
  const fields: Record<string, unknown> = { ...rest };
  for (const [alias, name, value] of [
    ["type", "environment", type],
    ["event_types", "actions", event_types],
    ["action", "verdict", action],
  ] as const) {
    if (value === undefined) continue;
    if (fields[name] !== undefined) return { problem: { field: alias, message: `give ${alias} or ${name}, not both` } };
    if (alias === "type" && !z.safeParse(Environment, value).success)
      return { problem: { field: "type", message: "must be development or production" } };
    if (alias === "action") {
      const a = z.safeParse(ServiceAction, value);
      if (!a.success) return { problem: { field: "action", message: `a Tessera verdict (${VERDICTS.join(", ")}), or { type: verdict }` } };
      fields.verdict = typeof a.data === "string" ? a.data : a.data.type;
    } else fields[name] = value;
  }
  const parsed = z.safeParse(PolicyRow, fields);
  if (!parsed.success) return { problem: problemOf(parsed.error) };
  return { ...parsed.data, key: parsed.data.key ?? parsed.data.name };
}

/** A JSON export: users, lists and policies, each a row named by its place in the file. */
export function parseJsonExport(name: string, text: string): ImportRows {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new ImportFileError(`${name}: not JSON (${(e as Error).message})`);
  }
  if (!doc || typeof doc !== "object" || Array.isArray(doc))
    throw new ImportFileError(`${name}: expected an object with users, lists or policies`);
  const { users = [], lists = [], policies = [], ...other } = doc as Record<string, unknown>;
  const unknown = Object.keys(other);
  if (unknown.length) throw new ImportFileError(`${name}: unknown section ${unknown.join(", ")} (known: users, lists, policies)`);
  for (const [section, value] of Object.entries({ users, lists, policies }))
    if (!Array.isArray(value)) throw new ImportFileError(`${name}: ${section} must be an array`);
  return {
    users: (users as unknown[]).map((u, i) => row(`${name} users[${i}]`, () => userFrom(u))),
    lists: (lists as unknown[]).map((l, i) =>
      row(`${name} lists[${i}]`, () => {
        const parsed = z.safeParse(ListRow, l);
        return parsed.success ? parsed.data : { problem: problemOf(parsed.error) };
      }),
    ),
    policies: (policies as unknown[]).map((p, i) => row(`${name} policies[${i}]`, () => policyFrom(p))),
  };
}

const CSV_COLUMNS = ["id", "email", "phone", "groups", "metadata"];

/** A CSV of users (header first); answers the rows, numbered by their line in the file. */
export function parseUsersCsv(name: string, text: string): ImportRows {
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    records = parseCsv(text, { columns: true, bom: true, skip_empty_lines: true, trim: true, info: true, relax_column_count: false });
  } catch (e) {
    throw new ImportFileError(`${name}: ${(e as Error).message}`);
  }
  const header = records[0] ? Object.keys(records[0].record) : [];
  const unknown = header.filter((c) => !CSV_COLUMNS.includes(c) && !/^metadata\.[^.\s]{1,40}$/.test(c));
  if (unknown.length)
    throw new ImportFileError(`${name}: unknown column ${unknown.join(", ")} (known: ${CSV_COLUMNS.join(", ")}, metadata.KEY)`);
  if (records.length && !header.includes("id")) throw new ImportFileError(`${name}: the header has no id column`);
  return {
    users: records.map(({ record, info }) =>
      row(`${name} line ${info.lines}`, () => {
        const user: Record<string, unknown> = {};
        const metadata: Record<string, unknown> = {};
        for (const [column, cell] of Object.entries(record)) {
          if (cell === "") continue;
          if (column === "groups")
            user.groups = cell
              .split(";")
              .map((g) => g.trim())
              .filter(Boolean);
          else if (column === "metadata") {
            let value: unknown;
            try {
              value = JSON.parse(cell);
            } catch {
              return { problem: { field: "metadata", message: "must be a JSON object" } };
            }
            if (!z.safeParse(Metadata, value).success || Array.isArray(value) || value === null)
              return { problem: { field: "metadata", message: "must be a JSON object" } };
            Object.assign(metadata, value);
          } else if (column.startsWith("metadata.")) metadata[column.slice("metadata.".length)] = cell;
          else user[column] = cell;
        }
        if (Object.keys(metadata).length) user.metadata = metadata;
        return userFrom(user);
      }),
    ),
    lists: [],
    policies: [],
  };
}

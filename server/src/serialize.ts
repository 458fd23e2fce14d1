// Responses serialised from the contract's schemas, compiled once per route and status (app.ts). From the zod
// schema's definition a projection is built: objects keep their declared keys in the schema's order and nothing else
// (an internal field on a row never reaches the wire; a strict object refuses one), every value is checked against
// its type (a string, a finite number, one of an enum's values, a required key present…), a primitive that carries
// zod checks (a range, a format, an integer) is run through zod itself, and what has nothing to strip (a record of
// primitives such as the checks snapshot, metadata) is checked and kept as it is. One JSON.stringify writes the
// result: the bytes of the zod path (zod's encode, then JSON.stringify), whose output is that same tree. What it
// cannot project faithfully (a union whose options share a kind, such as the policy condition tree's objects;
// tuples; transforms; dates; refinements on objects or arrays) makes the route use the zod path,
// fastify-type-provider-zod's serializerCompiler. A mismatch throws either way, and the error handler answers 500.
//
// Why not fast-json-stringify from the JSON Schema the contract also yields: it writes required keys before optional
// ones (the body's bytes would change), JSON Schema cannot tell a strict object from a stripping one, and its anyOf
// validates every checks-snapshot value with ajv. For an evaluation (20,000 writes): zod's encode 23–32 µs,
// fast-json-stringify 12–19 µs, this 7.4–8.6 µs, JSON.stringify alone 3.5–4.5 µs.
import type { FastifySerializerCompiler } from "fastify";
import { ResponseSerializationError, serializerCompiler as zodSerializerCompiler } from "fastify-type-provider-zod";
import { $ZodType, safeParse } from "zod/v4/core";

type Write = (value: unknown) => string;
/** The value checked against the schema, with only what it declares: what zod's encode would give, or Mismatch. */
type Project = (value: unknown) => unknown;
/** What a value must be for an option of a union to be the one that applies. */
type Kind = "string" | "number" | "boolean" | "null" | "array" | "object";

class Unsupported extends Error {}

class Mismatch extends Error {}

function fail(what: string): never {
  throw new Mismatch(what);
}

interface Compiled {
  project: Project;
  /** Kinds of value the schema accepts (for union dispatch); undefined: any value. */
  kinds: Set<Kind> | undefined;
  /** Whether an object key holding this schema may be absent (optional, unknown). */
  optional: boolean;
  /** Whether `project` gives back the value itself (nothing under it to strip): an array of it is not copied. */
  same: boolean;
}

// biome-ignore lint/suspicious/noExplicitAny: zod's internal definitions are untyped unions.
type Def = any;

function kindOf(value: unknown): Kind | undefined {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  const t = typeof value;
  if (t === "string" || t === "number" || t === "boolean" || t === "object") return t;
  return undefined;
}

const kinds = (...k: Kind[]) => new Set<Kind>(k);

/** A schema whose values are written as they are, once `test` holds. */
function leaf(test: (value: unknown) => boolean, k: Set<Kind> | undefined, what: string, optional = false): Compiled {
  return { project: (v) => (test(v) ? v : fail(what)), kinds: k, optional, same: true };
}

/** The projection of a zod schema, or Unsupported. `seen` holds the lazy schemas being compiled (recursion). */
function compile(schema: $ZodType, seen: Map<$ZodType, Compiled>): Compiled {
  const done = seen.get(schema);
  if (done) return done;
  const def: Def = schema._zod.def;
  const checked = (def.checks?.length ?? 0) > 0;
  /** A primitive with zod checks (a range, a format): its value is checked by zod too, after the type test. */
  const primitive = (test: (value: unknown) => boolean, k: Kind) =>
    leaf(checked ? (v) => test(v) && safeParse(schema, v).success : test, kinds(k), def.type);
  switch (def.type) {
    case "string":
      return primitive((v) => typeof v === "string", "string");
    case "number":
      return primitive((v) => typeof v === "number" && Number.isFinite(v), "number");
    case "boolean":
      return primitive((v) => typeof v === "boolean", "boolean");
    case "null":
      return leaf((v) => v === null, kinds("null"), "null");
    case "enum":
    case "literal": {
      if (checked) throw new Unsupported(def.type);
      const values: unknown[] = def.type === "enum" ? Object.values(def.entries) : def.values;
      if (!values.every((x) => typeof x === "string" || typeof x === "number" || typeof x === "boolean" || x === null))
        throw new Unsupported(`${def.type} values`);
      const allowed = new Set<unknown>(values);
      return leaf((v) => allowed.has(v), new Set(values.map((x) => kindOf(x)!)), def.type);
    }
    case "unknown":
    case "any":
      // Passed through as zod passes it, for JSON.stringify to write.
      return leaf(() => true, undefined, def.type, true);
    case "optional": {
      if (checked) throw new Unsupported("optional with checks");
      return { ...compile(def.innerType, seen), optional: true };
    }
    case "nullable": {
      if (checked) throw new Unsupported("nullable with checks");
      const inner = compile(def.innerType, seen);
      const project = inner.project;
      return {
        project: (v) => (v === null ? null : project(v)),
        kinds: inner.kinds && new Set<Kind>([...inner.kinds, "null"]),
        optional: inner.optional,
        same: inner.same,
      };
    }
    case "default":
    case "prefault":
    case "readonly": {
      // Encoding takes the value as it is: a default is not applied to an answer (a missing value is a mismatch).
      if (checked) throw new Unsupported(`${def.type} with checks`);
      const inner = compile(def.innerType, seen);
      return { ...inner, optional: def.type === "readonly" ? inner.optional : false };
    }
    case "lazy": {
      // Recursion: the entry is in `seen` before the inner schema is compiled, and projects through it once it is (a
      // schema holding the entry may have taken its projection before). Its kinds stay unknown: a union of it is not
      // compiled.
      let inner: Compiled | undefined;
      const entry: Compiled = { project: (v) => (inner ? inner.project(v) : fail("lazy")), kinds: undefined, optional: false, same: false };
      seen.set(schema, entry);
      inner = compile(def.getter(), seen);
      entry.optional = inner.optional;
      return entry;
    }
    case "array": {
      if (checked) throw new Unsupported("array with checks");
      const item = compile(def.element, seen);
      const project = item.project;
      return {
        project: item.same
          ? (v) => {
              if (!Array.isArray(v)) fail("array");
              for (let i = 0; i < v.length; i++) project(v[i]);
              return v;
            }
          : (v) => (Array.isArray(v) ? v.map((x) => project(x)) : fail("array")),
        kinds: kinds("array"),
        optional: false,
        same: item.same,
      };
    }
    case "record": {
      if (checked) throw new Unsupported("record with checks");
      const key: Def = def.keyType._zod.def;
      if (key.type !== "string" || (key.checks?.length ?? 0) > 0) throw new Unsupported("record keys");
      const value = compile(def.valueType, seen);
      const { project, optional, same } = value;
      return {
        project: (v) => {
          if (kindOf(v) !== "object") fail("record");
          const o = v as Record<string, unknown>;
          const out: Record<string, unknown> | undefined = same ? undefined : {};
          for (const k of Object.keys(o)) {
            const x = o[k];
            if (x === undefined) {
              if (!optional) fail(`record value ${k}`);
            } else if (out) out[k] = project(x);
            else project(x);
          }
          return out ?? v;
        },
        kinds: kinds("object"),
        optional: false,
        same,
      };
    }
    case "object": {
      if (checked) throw new Unsupported("object with checks");
      const catchall: Def | undefined = def.catchall?._zod.def;
      // A catchall other than never (a loose object, a catchall schema) passes unknown keys through: not compiled.
      if (catchall && catchall.type !== "never") throw new Unsupported("object catchall");
      const strictKeys = catchall ? new Set(Object.keys(def.shape)) : undefined;
      const fields = Object.entries(def.shape as Record<string, $ZodType>).map(([name, s]) => ({ name, field: compile(s, seen) }));
      return {
        // A new object of the declared keys, in the schema's order (zod's encode gives the same).
        project: (v) => {
          if (kindOf(v) !== "object") fail("object");
          const o = v as Record<string, unknown>;
          if (strictKeys) for (const k of Object.keys(o)) if (!strictKeys.has(k)) fail(`unknown key ${k}`);
          const out: Record<string, unknown> = {};
          for (const { name, field } of fields) {
            const x = o[name];
            if (x === undefined) {
              if (!field.optional) fail(`${name} is required`);
            } else out[name] = field.project(x);
          }
          return out;
        },
        kinds: kinds("object"),
        optional: false,
        same: false,
      };
    }
    case "union": {
      if (checked) throw new Unsupported("union with checks");
      // The first option that parses is zod's answer. Options that each accept a different kind of value (a string
      // or an array of strings, a value or null) make that the one option of the value's kind; options sharing a
      // kind would need zod's full parse to choose, and are not compiled.
      const options = (def.options as $ZodType[]).map((o) => compile(o, seen));
      const byKind = new Map<Kind, Compiled>();
      for (const o of options) {
        if (!o.kinds) throw new Unsupported("union of any");
        for (const k of o.kinds) {
          if (byKind.has(k)) throw new Unsupported(`union with two ${k} options`);
          byKind.set(k, o);
        }
      }
      const no: Project = () => fail("union");
      const pick = (k: Kind) => byKind.get(k)?.project ?? no;
      const [string, number, boolean, nul, array, object] = (["string", "number", "boolean", "null", "array", "object"] as const).map(pick);
      return {
        project: (v) => {
          switch (typeof v) {
            case "string":
              return string!(v);
            case "number":
              return number!(v);
            case "boolean":
              return boolean!(v);
            case "object":
              return v === null ? nul!(v) : Array.isArray(v) ? array!(v) : object!(v);
            default:
              return no(v);
          }
        },
        kinds: new Set(byKind.keys()),
        optional: options.some((o) => o.optional),
        same: options.every((o) => o.same),
      };
    }
    default:
      // Dates, transforms, pipes, tuples, intersections, catch, custom…: the zod path.
      throw new Unsupported(def.type);
  }
}

/** The compiled serializer of a response schema, or undefined where only the zod path is faithful. */
export function compileResponse(schema: unknown): Write | undefined {
  if (!(schema instanceof $ZodType)) return undefined;
  try {
    const { project } = compile(schema, new Map());
    return (v) => JSON.stringify(project(v));
  } catch (e) {
    if (e instanceof Unsupported) return undefined;
    throw e;
  }
}

/**
 * Under TESSERA_SERIALIZER_CHECK=1 (the test suite's setting, vite.config.ts) every answer of a compiled route is also
 * written by the zod path, and any difference — other bytes, or one refusing what the other writes — is thrown, so
 * that each answer of every test checks this compiler against zod.
 */
const CROSS_CHECK = process.env.TESSERA_SERIALIZER_CHECK === "1";

export class SerializerDisagreement extends Error {}

/**
 * Fastify's serializer compiler: the compiled serializer where the schema allows one, the zod path elsewhere. A
 * mismatch is a ResponseSerializationError, as on the zod path (answered 500 by the error handler).
 */
export const serializerCompiler: FastifySerializerCompiler<unknown> = (route) => {
  const zodPath = zodSerializerCompiler(route as Parameters<typeof zodSerializerCompiler>[0]);
  const write = compileResponse(route.schema);
  if (!write) return zodPath;
  const { method, url } = route;
  const compiled = (data: unknown) => {
    try {
      return write(data);
    } catch (e) {
      // The zod path's error, its cause the mismatch found (a message, not zod's list of issues).
      if (e instanceof Mismatch) throw new ResponseSerializationError(method, url ?? "", { cause: e as never });
      throw e;
    }
  };
  if (!CROSS_CHECK) return compiled;
  return (data: unknown) => {
    const outcome = (f: (d: unknown) => string) => {
      try {
        return { body: f(data) };
      } catch (error) {
        return { error: error as Error };
      }
    };
    const ours = outcome(compiled);
    const theirs = outcome(zodPath);
    if (ours.body !== theirs.body || !ours.error !== !theirs.error) {
      let at = 0;
      while (ours.body && theirs.body && ours.body[at] === theirs.body[at]) at++;
      const what = (o: typeof ours) =>
        o.error ? `refused (${String(o.error.cause ?? o.error.message)})` : `…${o.body?.slice(at, at + 80)}`;
      const message = `${method} ${url}: from character ${at}, compiled ${what(ours)}, zod ${what(theirs)}`;
      console.error(`serializer disagreement: ${message}`);
      throw new SerializerDisagreement(message);
    }
    if (ours.error) throw ours.error;
    return ours.body!;
  };
};

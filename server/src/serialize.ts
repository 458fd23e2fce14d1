// Responses serialised from the contract's schemas, compiled once per route and status (app.ts). A serializer is
// built from the zod schema's definition: objects write their declared keys in the schema's order and nothing else
// (an internal field on a row never reaches the wire; a strict object refuses one), every value is checked against
// its type (a string, a finite number, one of an enum's values, a required key present…), and a primitive that
// carries zod checks (a range, a format, an integer) is run through zod itself. The bytes are those of the zod path
// (zod's encode, then JSON.stringify): same keys, same order, same escaping. What it cannot write faithfully (a union
// whose options share a kind, such as the policy condition tree's objects; transforms; dates; refinements on objects
// or arrays) makes the whole route use the zod path, fastify-type-provider-zod's serializerCompiler, which encodes
// with zod and then stringifies. A mismatch throws either way, and the error handler answers 500.
//
// Why not fast-json-stringify from the JSON Schema the contract also yields: it writes required keys before optional
// ones (the body's bytes would change), JSON Schema cannot tell a strict object from a stripping one, and its anyOf
// validates every checks-snapshot value with ajv (12–19 µs for an evaluation against 23–30 µs for zod's encode and
// 4 µs for JSON.stringify, measured).
import type { FastifySerializerCompiler } from "fastify";
import { ResponseSerializationError, serializerCompiler as zodSerializerCompiler } from "fastify-type-provider-zod";
import { $ZodType, safeParse } from "zod/v4/core";

type Write = (value: unknown) => string;
/** What a value must be for an option of a union to be the one that applies. */
type Kind = "string" | "number" | "boolean" | "null" | "array" | "object";

class Unsupported extends Error {}

class Mismatch extends Error {}

function fail(what: string): never {
  throw new Mismatch(what);
}

interface Compiled {
  write: Write;
  /** Kinds of value the schema accepts (for union dispatch); undefined: any value. */
  kinds: Set<Kind> | undefined;
  /** Whether an object key holding this schema may be absent (optional, unknown). */
  optional: boolean;
  /**
   * For a schema whose JSON is JSON.stringify's (no object to strip, no zod check): whether a value is valid. A
   * record or array of such values is then checked by it and written by one JSON.stringify.
   */
  test?: (value: unknown) => boolean;
}

/** A schema written by JSON.stringify once its value passes `test`. */
function plain(test: (value: unknown) => boolean, kinds: Set<Kind> | undefined, optional: boolean, what: string): Compiled {
  return { write: (v) => (test(v) ? (JSON.stringify(v) ?? "null") : fail(what)), kinds, optional, test };
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

/** The serializer of a zod schema, or Unsupported. `seen` holds the lazy schemas being compiled (recursion). */
function compile(schema: $ZodType, seen: Map<$ZodType, Compiled>): Compiled {
  const done = seen.get(schema);
  if (done) return done;
  const def: Def = schema._zod.def;
  const checked = (def.checks?.length ?? 0) > 0;
  /** A leaf with zod checks (a range, a format): its value is checked by zod, after the type test. */
  const withChecks = (write: Write): Write =>
    checked
      ? (v) => {
          const s = write(v);
          if (!safeParse(schema, v).success) fail(`${def.type} check`);
          return s;
        }
      : write;
  switch (def.type) {
    case "string":
      if (!checked) return plain((v) => typeof v === "string", kinds("string"), false, "string");
      return {
        write: withChecks((v) => (typeof v === "string" ? JSON.stringify(v) : fail("string"))),
        kinds: kinds("string"),
        optional: false,
      };
    case "number":
      if (!checked) return plain((v) => typeof v === "number" && Number.isFinite(v), kinds("number"), false, "number");
      return {
        // A finite number's JSON is its string form.
        write: withChecks((v) => (typeof v === "number" && Number.isFinite(v) ? `${v}` : fail("number"))),
        kinds: kinds("number"),
        optional: false,
      };
    case "boolean":
      if (!checked) return plain((v) => typeof v === "boolean", kinds("boolean"), false, "boolean");
      return {
        write: withChecks((v) => (v === true ? "true" : v === false ? "false" : fail("boolean"))),
        kinds: kinds("boolean"),
        optional: false,
      };
    case "null":
      return plain((v) => v === null, kinds("null"), false, "null");
    case "enum":
    case "literal": {
      if (checked) throw new Unsupported(def.type);
      const values: unknown[] = def.type === "enum" ? Object.values(def.entries) : def.values;
      if (!values.every((x) => typeof x === "string" || typeof x === "number" || typeof x === "boolean" || x === null))
        throw new Unsupported(`${def.type} values`);
      const allowed = new Set<unknown>(values);
      return plain((v) => allowed.has(v), new Set(values.map((x) => kindOf(x)!)), false, def.type);
    }
    case "unknown":
    case "any":
      // As JSON.stringify writes it (an object key holding undefined is left out by the object's writer).
      return plain(() => true, undefined, true, def.type);
    case "optional": {
      if (checked) throw new Unsupported("optional with checks");
      const inner = compile(def.innerType, seen);
      return { ...inner, optional: true };
    }
    case "nullable": {
      if (checked) throw new Unsupported("nullable with checks");
      const inner = compile(def.innerType, seen);
      const kinds = inner.kinds && new Set<Kind>([...inner.kinds, "null"]);
      const test = inner.test;
      if (test) return plain((v) => v === null || test(v), kinds, inner.optional, "nullable");
      return { write: (v) => (v === null ? "null" : inner.write(v)), kinds, optional: inner.optional };
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
      // Recursion: the entry is in `seen` before the inner schema is compiled, and writes through it once it is (a
      // schema holding the entry may have taken its writer before). Its kinds stay unknown: a union of it is not
      // compiled.
      let inner: Compiled | undefined;
      const entry: Compiled = { write: (v) => (inner ? inner.write(v) : fail("lazy")), kinds: undefined, optional: false };
      seen.set(schema, entry);
      inner = compile(def.getter(), seen);
      entry.optional = inner.optional;
      return entry;
    }
    case "array": {
      if (checked) throw new Unsupported("array with checks");
      const item = compile(def.element, seen);
      const itemTest = item.test;
      if (itemTest) return plain((v) => Array.isArray(v) && v.every(itemTest), kinds("array"), false, "array");
      const write = item.write;
      return {
        write: (v) => {
          if (!Array.isArray(v)) fail("array");
          if (v.length === 0) return "[]";
          let out = `[${write(v[0])}`;
          for (let i = 1; i < v.length; i++) out += `,${write(v[i])}`;
          return `${out}]`;
        },
        kinds: kinds("array"),
        optional: false,
      };
    }
    case "record": {
      if (checked) throw new Unsupported("record with checks");
      const key: Def = def.keyType._zod.def;
      if (key.type !== "string" || (key.checks?.length ?? 0) > 0) throw new Unsupported("record keys");
      const value = compile(def.valueType, seen);
      const valueTest = value.test;
      if (valueTest) {
        const optional = value.optional;
        return plain(
          (v) => {
            if (kindOf(v) !== "object") return false;
            for (const k of Object.keys(v as object)) {
              const x = (v as Record<string, unknown>)[k];
              if (x === undefined ? !optional : !valueTest(x)) return false;
            }
            return true;
          },
          kinds("object"),
          false,
          "record",
        );
      }
      return {
        write: (v) => {
          if (kindOf(v) !== "object") fail("record");
          let out = "";
          for (const k of Object.keys(v as object)) {
            const x = (v as Record<string, unknown>)[k];
            if (x === undefined) {
              if (value.optional) continue;
              fail(`record value ${k}`);
            }
            out += `${out ? "," : "{"}${JSON.stringify(k)}:${value.write(x)}`;
          }
          return out ? `${out}}` : "{}";
        },
        kinds: kinds("object"),
        optional: false,
      };
    }
    case "object": {
      if (checked) throw new Unsupported("object with checks");
      const catchall: Def | undefined = def.catchall?._zod.def;
      // A catchall other than never (a loose object, a catchall schema) passes unknown keys through: not compiled.
      if (catchall && catchall.type !== "never") throw new Unsupported("object catchall");
      const strictKeys = catchall ? new Set(Object.keys(def.shape)) : undefined;
      const fields = Object.entries(def.shape as Record<string, $ZodType>).map(([name, s]) => ({
        name,
        prefix: JSON.stringify(name),
        field: compile(s, seen),
      }));
      return {
        write: (v) => {
          if (kindOf(v) !== "object") fail("object");
          const o = v as Record<string, unknown>;
          if (strictKeys) for (const k of Object.keys(o)) if (!strictKeys.has(k)) fail(`unknown key ${k}`);
          let out = "";
          for (const { name, prefix, field } of fields) {
            const x = o[name];
            if (x === undefined) {
              if (field.optional) continue;
              fail(`${name} is required`);
            }
            out += `${out ? "," : "{"}${prefix}:${field.write(x)}`;
          }
          return out ? `${out}}` : "{}";
        },
        kinds: kinds("object"),
        optional: false,
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
      if (options.every((o) => o.test)) {
        const tests = new Map([...byKind].map(([k, o]) => [k, o.test!]));
        const optional = options.some((o) => o.optional);
        return plain(
          (v) => (v === undefined ? optional : (tests.get(kindOf(v)!)?.(v) ?? false)),
          new Set(byKind.keys()),
          optional,
          "union",
        );
      }
      const no: Write = () => fail("union");
      const pick = (k: Kind) => byKind.get(k)?.write ?? no;
      const [string, number, boolean, nul, array, object] = (["string", "number", "boolean", "null", "array", "object"] as const).map(pick);
      return {
        write: (v) => {
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
    return compile(schema, new Map()).write;
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

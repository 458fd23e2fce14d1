// The OpenAPI document (/openapi.json) generated from the zod schemas of the routes, and its reference page (/docs).
// Every wire object of the contract is a named component (its export name; requests get an "Input" twin), so every
// $ref resolves, the recursive policy conditions included. Each operation says what it does, who may call it
// (describe.ts SECURITY) and shows an example (docs-examples.ts); errors say what each status means.
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import * as contract from "@tessera/sdk/contract";
import type { FastifyInstance } from "fastify";
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from "fastify-type-provider-zod";
import type { OpenAPIV3_1 } from "openapi-types";
import { $ZodRegistry, $ZodType, globalRegistry } from "zod/v4/core";
import { EXAMPLES } from "./docs-examples.js";

/** A component's name, description and example, and the bounds JSON Schema states that no zod check shows. */
type Meta = { id?: string; description?: string; examples?: unknown[]; maxProperties?: number; maxItems?: number };

/** Kinds of schema that are wire objects (named components); strings, numbers and records stay inline. */
const NAMED_KINDS = new Set(["object", "union", "enum", "array", "tuple"]);

/**
 * The contract's wire objects by their export names. Path and query schemas stay inline: OpenAPI lists their fields as
 * parameters, which a reference would hide.
 */
export const REGISTRY: $ZodRegistry<Meta> = (() => {
  const registry = new $ZodRegistry<Meta>();
  for (const [name, value] of Object.entries(contract)) {
    if (!(value instanceof $ZodType) || /(Param|Params|Query)$/.test(name)) continue;
    // What the contract says of a schema itself (z.meta: a bound no JSON Schema keyword states, like Metadata's size).
    const own = globalRegistry.get(value) as Meta | undefined;
    if (!NAMED_KINDS.has(value._zod.def.type)) {
      if (own) registry.add(value, own);
      continue;
    }
    const example = (EXAMPLES as Record<string, unknown>)[name];
    registry.add(value, { ...own, id: name, ...(example !== undefined ? { examples: [example] } : {}) });
  }
  // Metadata's bounds that no zod check of it shows (kept out of the schema's own z.meta: the browser SDK bundles it).
  registry.add(contract.Metadata, contract.METADATA_DOC);
  registry.add(contract.LegacyMetadataFields, {
    description: `At most ${contract.METADATA_MAX_KEYS} keys, ${contract.METADATA_MAX_BYTES / 1024} KB as JSON, and so the device's metadata once they are merged into it.`,
    maxProperties: contract.METADATA_MAX_KEYS,
  });
  return registry;
})();

/** What each error status means, wherever it is answered (the body is always ErrorBody). */
const STATUS_MEANINGS: Record<string, string> = {
  "400": "Bad input: `error.param` names the offending field",
  "401": "Missing, unknown or revoked credentials (`error.message` says which are needed)",
  "403": "These credentials may not do this (another challenge's link, an origin not allowed, a missing user_token…)",
  "404": "No such object in this environment (another project's objects answer 404 too)",
  "409": "Not possible in the object's current state: `error.code` says why (already_consumed, invalid_transition, over_device_limit…)",
  "413": "The body is larger than BODY_LIMIT",
  "415": "The body must be JSON",
  "429": "Too many requests: retry after the `Retry-After` seconds",
  "502": "The code could not be delivered (`error.message` says what the mail server or SMS provider answered)",
  "503": "The store is unavailable",
};

/** Example path parameters, by the path segment before them. */
const PARAMETER_EXAMPLES: Record<string, string> = {
  evaluations: "ev_Vp2yEKQNJgtEISJzvCwERk1i",
  evaluate: "login",
  challenges: "ch_Bd2VbsEyKpIbP4hCdKq7vhuU",
  devices: "dev_q3J9xY0aTbW8cLmN2pRsV4uZ",
  device: "dev_q3J9xY0aTbW8cLmN2pRsV4uZ",
  user: "acct_42",
  users: "acct_42",
  keys: "key_W3eR5tY7uI9oP1aS3dF5gH7j",
  policies: "pol_c7T2kQ9wX4mZ1bN8vR3pL6sY",
  lists: "blocked_ips",
  "webhook-endpoints": "whe_M4nB7vC1xZ9lK2jH5gF8dS3a",
  deliveries: "whd_P9oI8uY7tR6eW5qA4sD3fG2h",
  identification: "idn_L5kJ4hG3fD2sA1pO9iU8yT7r",
  text: "ch_Bd2VbsEyKpIbP4hCdKq7vhuU",
};

type Json = Record<string, unknown>;
type Media = { schema?: Json; example?: unknown };
type Operation = {
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { description?: string; content?: Record<string, Media> }>;
  parameters?: { in: string; name: string; example?: unknown }[];
};

/** The example of the component a media schema refers to (directly or through a nullable wrapper). */
function exampleOf(components: Record<string, Json>, schema: Json | undefined): unknown {
  const refs = [schema?.$ref, ...((schema?.anyOf as Json[] | undefined) ?? []).map((s) => s.$ref)];
  for (const ref of refs) {
    if (typeof ref !== "string") continue;
    const examples = components[ref.split("/").pop() ?? ""]?.examples as unknown[] | undefined;
    if (examples?.length) return examples[0];
  }
  return undefined;
}

/** Fills what the route declarations leave to the document: examples on operations, error meanings, 204 bodies. */
function finish(doc: Json): Json {
  const components = ((doc.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Record<string, Operation>>)) {
    for (const op of Object.values(item)) {
      for (const media of Object.values(op.requestBody?.content ?? {})) media.example ??= exampleOf(components, media.schema);
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        // A success says what it means in its route (describe.ts `ok`); only the error statuses share their meaning.
        if (response.description === "Default Response" && STATUS_MEANINGS[status]) response.description = STATUS_MEANINGS[status];
        if (status === "204") {
          delete response.content;
          continue;
        }
        if (!status.startsWith("2")) continue;
        for (const media of Object.values(response.content ?? {})) media.example ??= exampleOf(components, media.schema);
      }
      const segments = path.split("/");
      for (const p of op.parameters ?? []) {
        if (p.in !== "path" || p.example !== undefined) continue;
        const before = segments[segments.indexOf(`{${p.name}}`) - 1] ?? "";
        p.example = p.name === "send" ? 1 : p.name === "token" ? "Yq3xW7m0Yt1RkA9vB2nC5dF8gH4jK6lP" : PARAMETER_EXAMPLES[before];
      }
    }
  }
  return doc;
}

/**
 * Swagger UI injects one <style> element of its own (a fixed text, whose hash this is), which the page's
 * `style-src 'self'` refuses. Allowing that one text by its hash keeps the CSP strict and the console clean; an
 * upgrade that changes it shows as a CSP error in e2e/docs.e2e.ts.
 */
const SWAGGER_UI_STYLE = "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='";

/**
 * The document's `webhooks`: one entry per event, whose body is the event's payload schema from the contract
 * (WEBHOOK_PAYLOADS, a named component), as the receiver gets it signed with Standard Webhooks.
 */
function webhooks(): Record<string, OpenAPIV3_1.PathItemObject> {
  const entries = contract.WEBHOOK_EVENTS.map((event) => {
    const id = REGISTRY.get(contract.WEBHOOK_PAYLOADS[event])?.id;
    if (!id) throw new Error(`The payload of ${event} is not a named component`);
    const post = {
      summary: `The ${event} event`,
      description:
        "POSTed to each enabled endpoint subscribed to the event, signed with Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature` with the endpoint's `whsec_…` secret); retried with backoff until a 2xx answer.",
      requestBody: { content: { "application/json": { schema: { $ref: `#/components/schemas/${id}` } } } },
      responses: { "2XX": { description: "Received: the delivery succeeded" } },
    } satisfies OpenAPIV3_1.OperationObject;
    return [event, { post }] as const;
  });
  return Object.fromEntries(entries);
}

export async function registerOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  const toObject = createJsonSchemaTransformObject({ schemaRegistry: REGISTRY });
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Tessera API",
        version: "3.0.0",
        description: [
          "Device trust and action evaluation. Three kinds of caller:",
          "- **your backend**, with a secret key of the environment: `Authorization: Bearer sk_…` (the padlock);",
          "- **the browser SDK**, with the environment's public client id in the body (`client_id`), from an allowed origin: `/v3/client/*`, no header;",
          "- **the hosted challenge page**, with the challenge link's token in `X-Challenge-Token`, for that one challenge.",
          "",
          "Errors are `{ error: { status, code, message, param? } }` with a stable `code`; lists are paginated with `page` and `limit` (1–100) → `{ data, total, page, limit }`; dates are ISO 8601 with milliseconds and `Z`.",
        ].join("\n"),
      },
      servers: [{ url: publicUrl }],
      webhooks: webhooks(),
      components: {
        securitySchemes: {
          secretKey: { type: "http", scheme: "bearer", description: "A secret key of the environment (`tessera keys create`)." },
          challengeToken: {
            type: "apiKey",
            in: "header",
            name: "X-Challenge-Token",
            description: "The token of a challenge link (`redirect`): the hosted page's access to that one challenge.",
          },
          consoleSession: {
            type: "apiKey",
            in: "cookie",
            name: "tessera_session",
            description: "An operator's console session (the console's own API).",
          },
        },
      },
    },
    transform: createJsonSchemaTransform({ schemaRegistry: REGISTRY }),
    transformObject: (documentObject) => finish(toObject(documentObject) as Json) as ReturnType<typeof toObject>,
  });
  await app.register(swaggerUi, {
    routePrefix: "/docs",
    staticCSP: true,
    transformStaticCSP: (header) => header.replace("style-src 'self' https:", `style-src 'self' ${SWAGGER_UI_STYLE}`),
    uiConfig: { docExpansion: "list", deepLinking: true, defaultModelsExpandDepth: 0 },
  });
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}

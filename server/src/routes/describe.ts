// What each route declares about itself for the OpenAPI document (/openapi.json, /docs), beside its schemas: the
// answer with what it means (`ok`), and who may call it (`SECURITY`). docs.ts turns them into the document.
import type * as z from "zod/mini";

/** A success answer and what it means: `200: ok(Evaluation, "The evaluation, now consumed")`. */
export const ok = <T extends z.ZodMiniType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/** The security of an operation, by who calls it (the schemes are declared in docs.ts). */
export const SECURITY = {
  /** The server API: `Authorization: Bearer <secret key>`. */
  secretKey: [{ secretKey: [] }],
  /** Challenge operations: a secret key, or the hosted page's challenge link token (`X-Challenge-Token`). */
  secretKeyOrChallengeToken: [{ secretKey: [] }, { challengeToken: [] }],
  /** No credential in a header: the client API (its public client id is in the body, checked against the origin), health. */
  none: [],
} as const;

/**
 * onRoute hook of a scope whose routes all authenticate the same way (app.ts): documents that security on each route
 * that does not say otherwise, so the padlock in /docs follows the hook that really guards the route.
 */
export const documentSecurity =
  (security: (typeof SECURITY)[keyof typeof SECURITY]) =>
  (route: { schema?: { hide?: boolean; security?: unknown } }): void => {
    if (route.schema && !route.schema.hide && route.schema.security === undefined) route.schema = { ...route.schema, security };
  };

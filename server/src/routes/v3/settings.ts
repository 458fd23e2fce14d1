// Environment settings and secret keys for the console (docs/console.md): client id, allowed origins, branding, device
// limit, identity verification, the countries texts may go to; list, create (secret shown once) and revoke keys. Reading the settings is open to
// scripts; changing them and managing keys only to a signed-in owner (a leaked key must not mint more keys).
import {
  ApiKeyCreateRequest,
  ApiKeyList,
  ApiKeySummary,
  EnvironmentSettings,
  EnvironmentSettingsPatch,
  ErrorBody,
  IdParam,
} from "@tessera/sdk/contract";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import * as z from "zod/mini";
import { envOf } from "../../auth.js";
import { consoleOnly } from "../../console/session-auth.js";
import { createKey, listKeys, readSettings, revokeKey, updateSettings } from "../../console/settings.js";
import { notFound } from "../../errors.js";
import type { Services } from "../../services.js";
import { ok } from "../describe.js";

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

const settingsRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.get(
    "/v3/settings",
    {
      schema: {
        tags: ["settings"],
        summary: "The environment's settings",
        description:
          "Client id, allowed origins, identity verification and the countries texts may go to (`sms_countries`; absent: every country) of this environment; the project's branding, default device limit and admin email.",
        response: { 200: ok(EnvironmentSettings, "The settings"), ...errors },
      },
    },
    async (req) => {
      const s = await readSettings(services, envOf(req).id);
      if (!s) throw notFound("Environment");
      return s;
    },
  );

  app.patch(
    "/v3/settings",
    {
      schema: {
        tags: ["settings"],
        summary: "Change the environment's settings (console owners only)",
        description:
          "Allowed origins, identity verification and `sms_countries` (ISO 3166 alpha-2 codes; set it in production so that texts go only where your users are) are the environment's; branding, device limit and admin email are the project's. null clears a setting (`sms_countries`: every country).",
        body: EnvironmentSettingsPatch,
        response: { 200: ok(EnvironmentSettings, "The settings after the change"), ...errors },
      },
    },
    async (req) => {
      consoleOnly(req);
      return updateSettings(services, envOf(req), req.body);
    },
  );

  app.get(
    "/v3/keys",
    {
      schema: {
        tags: ["settings"],
        summary: "The environment's secret keys (console owners only)",
        description:
          "Prefix, label, state and last use (to the minute) of each key; a secret is shown only when its key is created. A secret key may not list keys (403).",
        response: { 200: ok(ApiKeyList, "The keys"), ...errors },
      },
    },
    async (req) => {
      consoleOnly(req);
      return { data: await listKeys(services, envOf(req)) };
    },
  );

  app.post(
    "/v3/keys",
    {
      schema: {
        tags: ["settings"],
        summary: "Create a secret key (console owners only); its secret is in this answer only",
        description:
          "A new secret key of this environment, with an optional `label` saying what it is for. Keep the `secret` now: it is stored only as a hash. A secret key may not create keys (403).",
        body: z.nullish(ApiKeyCreateRequest),
        response: { 201: ok(ApiKeySummary, "The key, with its secret (shown once)"), ...errors },
      },
    },
    async (req, reply) => {
      consoleOnly(req);
      return reply.status(201).send(await createKey(services, envOf(req), req.body?.label));
    },
  );

  app.post(
    "/v3/keys/:id/revoke",
    {
      schema: {
        tags: ["settings"],
        summary: "Revoke a secret key at once (console owners only)",
        description: "The key stops working at once on every instance. A secret key may not revoke keys (403).",
        params: IdParam,
        response: { 200: ok(ApiKeySummary, "The key, revoked"), ...errors },
      },
    },
    async (req) => {
      consoleOnly(req);
      return revokeKey(services, envOf(req), req.params.id);
    },
  );
};

export default settingsRoutes;

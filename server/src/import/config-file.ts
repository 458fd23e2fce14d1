// Policies, lists and webhook endpoints from CONFIG_FILE, applied at start to every environment (or the one named):
//   { "policies": [ { "key": "block-tor", "environment": "production", ...policy } ],
//     "lists": { "blocked_ips": ["1.2.3.4"], "vip": { "values": ["user_1"], "comment": "..." } },
//     "webhook_endpoints": [ { "key": "crm", "environment": "production", "url": "https://…", "events": [...],
//                              "secret": "whsec_…" } ] }
// A config policy or endpoint is keyed (by `key`, else its name or URL), so restarting updates it rather than adding
// a copy. A mistake stops the start with a message naming the file and the entry, never a silently dropped entry.
import fs from "node:fs";
import { Environment, PolicyCreateRequest, WebhookEndpointCreateRequest } from "@tessera/sdk/contract";
import * as z from "zod/mini";
import { isTestList } from "../policies/test-mode.js";
import { validatePolicy } from "../policies/validate.js";
import type { Repos } from "../store/repos.js";
import type { WebhookEndpointsService } from "../webhooks/endpoints.js";

const ConfigFile = z.strictObject({
  policies: z.optional(z.array(z.extend(PolicyCreateRequest, { key: z.optional(z.string()) }))),
  lists: z.optional(
    z.record(z.string(), z.union([z.array(z.string()), z.object({ values: z.array(z.string()), comment: z.optional(z.string()) })])),
  ),
  webhook_endpoints: z.optional(
    z.array(
      z.extend(WebhookEndpointCreateRequest, {
        key: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
        environment: z.optional(Environment),
        /** The signing secret, so that the receiver knows it: a Standard Webhooks `whsec_` + base64 of 24+ bytes. */
        secret: z
          .string()
          .check(z.regex(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/, "secret must be whsec_ followed by base64 of 24 bytes or more")),
      }),
    ),
  ),
});

export async function loadConfigFile(
  services: { repos: Repos; webhookEndpoints: WebhookEndpointsService },
  file: string,
): Promise<{ policies: number; lists: number; webhookEndpoints: number }> {
  const { repos } = services;
  const fail = (what: string) => new Error(`CONFIG_FILE ${file}: ${what}`);
  const parsed = ConfigFile.safeParse(JSON.parse(fs.readFileSync(file, "utf8")));
  if (!parsed.success) throw fail(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "));
  const cfg = parsed.data;
  for (const p of cfg.policies ?? []) {
    try {
      validatePolicy(p);
    } catch (e) {
      throw fail(`policy "${p.name}": ${(e as Error).message}`);
    }
  }
  const envs = await repos.policies.environments();
  let policies = 0;
  let lists = 0;
  let webhookEndpoints = 0;
  for (const env of envs) {
    for (const { key, environment, ...p } of cfg.policies ?? []) {
      if (environment && environment !== env.name) continue;
      await repos.policies.upsertByKey(env.id, `config:${key ?? p.name}`, p, "config");
      policies++;
    }
    for (const [id, entry] of Object.entries(cfg.lists ?? {})) {
      // Test-mode lists force verdicts: development environments only.
      if (isTestList(id) && env.name !== "development") continue;
      const values = Array.isArray(entry) ? entry : entry.values;
      if (values.length)
        await repos.lists.add(env.id, id, values, { comment: Array.isArray(entry) ? "config file" : (entry.comment ?? "config file") });
      lists++;
    }
    for (const { key, environment, ...endpoint } of cfg.webhook_endpoints ?? []) {
      if (environment && environment !== env.name) continue;
      try {
        await services.webhookEndpoints.upsertFromConfig(env, key ?? endpoint.url, endpoint);
      } catch (e) {
        throw fail(`webhook endpoint "${key ?? endpoint.url}" (${env.name}): ${(e as Error).message}`);
      }
      webhookEndpoints++;
    }
  }
  return { policies, lists, webhookEndpoints };
}

// Policies and lists from CONFIG_FILE, applied at start to every environment (or the one named):
//   { "policies": [ { "key": "block-tor", "environment": "production", ...policy } ],
//     "lists": { "blocked_ips": ["1.2.3.4"], "vip": { "values": ["user_1"], "comment": "..." } } }
// A config policy is keyed (by `key`, else its name), so restarting updates it rather than adding a copy.
import fs from "node:fs";
import { PolicyCreateRequest } from "@tessera/sdk/contract";
import * as z from "zod/mini";
import type { Repos } from "../store/repos.js";
import { validatePolicy } from "./validate.js";

const ConfigFile = z.object({
  policies: z.optional(z.array(z.extend(PolicyCreateRequest, { key: z.optional(z.string()) }))),
  lists: z.optional(
    z.record(z.string(), z.union([z.array(z.string()), z.object({ values: z.array(z.string()), comment: z.optional(z.string()) })])),
  ),
});

export async function loadConfigFile(repos: Repos, file: string): Promise<{ policies: number; lists: number }> {
  const parsed = ConfigFile.safeParse(JSON.parse(fs.readFileSync(file, "utf8")));
  if (!parsed.success)
    throw new Error(`CONFIG_FILE ${file}: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  const cfg = parsed.data;
  for (const p of cfg.policies ?? []) {
    try {
      validatePolicy(p);
    } catch (e) {
      throw new Error(`CONFIG_FILE ${file}: policy "${p.name}": ${(e as Error).message}`);
    }
  }
  const envs = await repos.policies.environments();
  let policies = 0;
  let lists = 0;
  for (const env of envs) {
    for (const { key, environment, ...p } of cfg.policies ?? []) {
      if (environment && environment !== env.name) continue;
      await repos.policies.upsertByKey(env.id, `config:${key ?? p.name}`, p, "config");
      policies++;
    }
    for (const [id, entry] of Object.entries(cfg.lists ?? {})) {
      const values = Array.isArray(entry) ? entry : entry.values;
      if (values.length)
        await repos.lists.add(env.id, id, values, { comment: Array.isArray(entry) ? "config file" : (entry.comment ?? "config file") });
      lists++;
    }
  }
  return { policies, lists };
}

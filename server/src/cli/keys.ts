// `tessera keys …` (docs/projects.md): an environment's secret keys (created and shown once, listed without the
// secret, revoked) and its identity secret, which signs user tokens (docs/identity.md). Each change goes to the
// project's audit log, never a secret.
import { recordCliChange } from "../console/audit.js";
import { hashSecret } from "../store/projects.js";
import { auditSettings } from "./audit.js";
import { type Command, envOption, json, noProject, projectId, str, UsageError, type Value } from "./options.js";

/** Labels say what a key is for in `keys list`; a line of text, not a document. */
function labelOption(v: Value): string | undefined {
  const label = str(v)?.trim();
  if (label === undefined) return undefined;
  if (!label || label.length > 100 || /[\r\n]/.test(label)) throw new UsageError("--label must be one line of 1-100 characters");
  return label;
}

export const keyCommands: Command[] = [
  {
    name: "keys create",
    usage: "PROJECT_ID --env ENV [--label TEXT] [--json]",
    summary: "Create another secret key (shown once); the label says what it is for in keys list",
    options: { env: { type: "string" }, label: { type: "string" }, ...json },
    run: async (services, { values, positionals }) => {
      const { projects } = services.repos;
      const id = projectId(positionals);
      const env = envOption(values.env);
      const label = labelOption(values.label);
      const key = await projects.createKey(id, env, label);
      if (!key) throw noProject(id);
      const scope = await services.repos.auditLog.keyScope(key.id, "");
      await recordCliChange(services.repos, {
        projectId: id,
        environmentId: scope?.environment_id ?? null,
        action: "key.create",
        targetType: "key",
        targetId: key.id,
        after: { id: key.id, environment: env, prefix: scope?.prefix, label: label ?? null },
      });
      console.log(values.json ? JSON.stringify(key) : `Key ${key.id}\n  secret: ${key.secret}\nShown once: keep it now.`);
      return 0;
    },
  },
  {
    name: "keys list",
    usage: "PROJECT_ID [--json]",
    summary: "List a project's keys (id, environment, prefix, label, state; never the secret)",
    options: json,
    run: async ({ repos: { projects } }, { values, positionals }) => {
      const keys = await projects.listKeys(projectId(positionals));
      if (values.json) console.log(JSON.stringify(keys));
      else
        for (const k of keys)
          console.log(`${k.id}  ${k.environment}  ${k.prefix}…  ${k.revoked_at ? "revoked" : "active"}${k.label ? `  ${k.label}` : ""}`);
      return 0;
    },
  },
  {
    name: "keys revoke",
    usage: "KEY_ID_OR_SECRET",
    summary: "Revoke a key; running servers refuse it at once",
    run: async ({ repos }, { positionals }) => {
      const target = positionals[0];
      if (!target) throw new UsageError("KEY_ID_OR_SECRET is missing");
      if (!(await repos.projects.revokeKey(target)))
        throw new UsageError("no active key matches (tessera keys list PROJECT_ID shows them)");
      const key = await repos.auditLog.keyScope(target, hashSecret(target));
      if (key)
        await recordCliChange(repos, {
          projectId: key.project_id,
          environmentId: key.environment_id,
          action: "key.revoke",
          targetType: "key",
          targetId: key.id,
          after: { id: key.id, prefix: key.prefix, revoked: true },
        });
      console.log("Key revoked");
      return 0;
    },
  },
  {
    name: "keys identity-secret",
    usage: "PROJECT_ID --env ENV [--json]",
    summary: "Create or rotate the environment's identity secret, which signs user tokens (shown once; the old one stops at once)",
    options: { env: { type: "string" }, ...json },
    run: async (services, { values, positionals }) => {
      const id = projectId(positionals);
      const env = envOption(values.env);
      let secret: string | undefined;
      // The entry names the rotation; the secret itself is never in it.
      const rotate = async () => {
        secret = await services.identity.rotate(id, env);
        return secret !== undefined;
      };
      if (!(await auditSettings(services, id, [env], rotate, "identity_secret.rotate")) || !secret) throw noProject(id);
      console.log(
        values.json
          ? JSON.stringify({ environment: env, identity_secret: secret })
          : `Identity secret of ${env}: ${secret}\nShown once: keep it in your backend's configuration (user_token = base64url HMAC-SHA256 of the user id).`,
      );
      return 0;
    },
  },
];

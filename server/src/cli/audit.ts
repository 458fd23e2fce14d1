// The audit log of the CLI's changes to a project's settings (projects origins and settings, keys identity-secret):
// the same entry the console leaves, with the CLI as actor.
import type { Environment } from "@tessera/sdk/contract";
import { recordCliChange } from "../console/audit.js";
import { readSettings } from "../console/settings.js";
import type { Services } from "../services.js";

/**
 * Runs a CLI change to a project's settings (origins, branding, limits, identity verification, where texts may go) and
 * writes it to the audit log of each environment it touched, before and after as the settings API shows them (the
 * same entry the console's PATCH /v3/settings leaves, with the CLI as actor).
 */
export async function auditSettings(
  services: Services,
  projectId: string,
  envs: readonly Environment[],
  change: () => Promise<boolean>,
  action = "settings.update",
): Promise<boolean> {
  const ids = (await Promise.all(envs.map((e) => services.repos.projects.environmentOf(projectId, e)))).flatMap((e) => (e ? [e.id] : []));
  const before = await Promise.all(ids.map((id) => readSettings(services, id)));
  if (!(await change())) return false;
  for (const [i, id] of ids.entries()) {
    await recordCliChange(services.repos, {
      projectId,
      environmentId: id,
      action,
      targetType: "environment",
      targetId: id,
      before: before[i],
      after: await readSettings(services, id),
    });
  }
  return true;
}

// `tessera operators …` (docs/console.md): the console's operators are made, given roles, sent sign-in links and
// removed from the command line only, never by a web form. Each change ends the operator's sessions and goes to the
// audit log of each project it touched.
import { ROLES, type Role } from "@tessera/sdk/contract";
import { recordCliChange } from "../console/audit.js";
import type { OperatorAccess, OperatorChange, OperatorScope } from "../console/operators.js";
import { ApiError } from "../errors.js";
import type { Services } from "../services.js";
import { type Command, Refused, str, UsageError, type Value, type Values } from "./options.js";

function emailOption(v: Value): string {
  const email = str(v)?.trim();
  if (!email) throw new UsageError("--email is required");
  return email;
}

function roleOption(v: Value): Role {
  const role = str(v);
  if (!role || !(ROLES as readonly string[]).includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(", ")}`);
  return role as Role;
}

function scopeOption(values: Values): OperatorScope {
  const projectIds = Array.isArray(values.project) ? values.project : [];
  const allProjects = values["all-projects"] === true;
  if (allProjects && projectIds.length) throw new UsageError("--project and --all-projects cannot be given together");
  return { projectIds, allProjects };
}

/** A service's refusal as the CLI says it: bad input (400) is a usage error, a refused change (409) one line too. */
async function operatorChange(change: () => Promise<OperatorChange>): Promise<OperatorChange> {
  try {
    return await change();
  } catch (e) {
    if (e instanceof ApiError && e.status === 409) throw new Refused(e.message);
    if (e instanceof ApiError) throw new UsageError(e.message.charAt(0).toLowerCase() + e.message.slice(1));
    throw e;
  }
}

const describeAccess = (a: OperatorAccess): string =>
  [...(a.allProjects ? [`${a.allProjects} on every project`] : []), ...a.projects.map((p) => `${p.role} on ${p.id}`)].join(", ") ||
  "no project";

/**
 * The audit log of each project the change touched shows it (actor cli); a change to the all-projects role is also
 * kept as an installation-wide entry. Roles, never passwords or links.
 */
async function auditOperator(services: Services, action: string, change: OperatorChange): Promise<void> {
  const target = { operator: change.operator.email };
  const projects = new Set([...change.before.projects.map((p) => p.id), ...(change.after?.projects.map((p) => p.id) ?? [])]);
  const roleOn = (a: OperatorAccess | null, id: string) => a?.projects.find((p) => p.id === id)?.role ?? null;
  for (const id of projects)
    await recordCliChange(services.repos, {
      projectId: id,
      action,
      targetType: "operator",
      targetId: change.operator.id,
      before: { ...target, role: roleOn(change.before, id), all_projects: change.before.allProjects },
      after: change.after ? { ...target, role: roleOn(change.after, id), all_projects: change.after.allProjects } : null,
    });
  if (change.before.allProjects || change.after?.allProjects)
    await recordCliChange(services.repos, {
      projectId: null,
      action,
      targetType: "operator",
      targetId: change.operator.id,
      before: { ...target, all_projects: change.before.allProjects },
      after: change.after ? { ...target, all_projects: change.after.allProjects } : null,
    });
}

export const operatorCommands: Command[] = [
  {
    name: "operators create",
    usage: "--email EMAIL --role owner|analyst|viewer (--project PROJECT_ID ... | --all-projects)",
    summary:
      "Create a console operator (or add projects to one, or change its role on them) and print a one-time sign-in link where it chooses its password (24 h); ends its sessions",
    details:
      "  --project       a project the operator may see (repeat it for several)\n  --all-projects  every project, present and future: the installation's administrators",
    options: {
      email: { type: "string" },
      role: { type: "string" },
      project: { type: "string", multiple: true },
      "all-projects": { type: "boolean" },
    },
    run: async (services, { values }) => {
      const email = emailOption(values.email);
      const role = roleOption(values.role);
      const { projectIds, allProjects } = scopeOption(values);
      if (!allProjects && projectIds.length === 0) throw new UsageError("--project PROJECT_ID (repeatable) or --all-projects is required");
      try {
        const existing = await services.repos.operators.findByEmail(email);
        const before = existing ? await services.operators.access(existing) : { allProjects: null, projects: [] };
        const { operator, created, link } = await services.operators.create({ email, role, projectIds, allProjects });
        await auditOperator(services, "operator.create", { operator, before, after: await services.operators.access(operator) });
        console.log(
          `${created ? "Created" : "Updated"} operator ${operator.email} (${role} on ${allProjects ? "every project" : projectIds.join(", ")})\n` +
            `  one-time sign-in link (24 h): ${link}`,
        );
      } catch (e) {
        if (e instanceof ApiError) throw new UsageError(e.message);
        throw e;
      }
      return 0;
    },
  },
  {
    name: "operators link",
    usage: "--email EMAIL",
    summary: "Print a new one-time sign-in link for an operator (a forgotten or exposed password); ends its sessions",
    options: { email: { type: "string" } },
    run: async (services, { values }) => {
      const email = emailOption(values.email);
      const operator = await services.repos.operators.findByEmail(email);
      if (!operator) throw new UsageError(`no operator ${email}`);
      const link = await services.operators.issueLink(operator.id);
      const access = await services.operators.access(operator);
      await auditOperator(services, "operator.link", { operator, before: access, after: access });
      console.log(`One-time sign-in link for ${operator.email} (24 h): ${link}\nIts sessions have ended.`);
      return 0;
    },
  },
  {
    name: "operators remove",
    usage: "--email EMAIL [--project PROJECT_ID ... | --all-projects]",
    summary: "Remove a console operator, or take it off some projects; ends every session of it",
    details: [
      "  (neither)       remove the operator and every role it has",
      "  --project       take it off this project only (repeat it for several); it keeps the others",
      "  --all-projects  take its all-projects role only; it keeps the projects granted one by one",
      "The installation's last administrator (owner of every project) cannot be removed: make another first.",
    ].join("\n"),
    options: { email: { type: "string" }, project: { type: "string", multiple: true }, "all-projects": { type: "boolean" } },
    run: async (services, { values }) => {
      const email = emailOption(values.email);
      const change = await operatorChange(() => services.operators.remove(email, scopeOption(values)));
      await auditOperator(services, "operator.remove", change);
      console.log(
        change.after
          ? `Operator ${change.operator.email} now: ${describeAccess(change.after)}; its sessions have ended`
          : `Removed operator ${change.operator.email}; its sessions have ended`,
      );
      return 0;
    },
  },
  {
    name: "operators role",
    usage: "--email EMAIL --role owner|analyst|viewer [--project PROJECT_ID ... | --all-projects]",
    summary: "Change a console operator's role; ends every session of it, so its next one has the new rights",
    details: [
      "  (neither)       the role on every project it has, and on all projects if it is an administrator",
      "  --project       the role on this project only (repeat it for several; operators create adds projects)",
      "  --all-projects  its all-projects role only",
      "On a project, an operator has the stronger of its all-projects role and that project's role.",
      "The installation's last administrator (owner of every project) cannot be made analyst or viewer there.",
    ].join("\n"),
    options: {
      email: { type: "string" },
      role: { type: "string" },
      project: { type: "string", multiple: true },
      "all-projects": { type: "boolean" },
    },
    run: async (services, { values }) => {
      const email = emailOption(values.email);
      const role = roleOption(values.role);
      const change = await operatorChange(() => services.operators.setRole(email, role, scopeOption(values)));
      await auditOperator(services, "operator.role", change);
      console.log(`Operator ${change.operator.email} now: ${describeAccess(change.after as OperatorAccess)}; its sessions have ended`);
      return 0;
    },
  },
];

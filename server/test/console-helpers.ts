// Helpers for the console's integration tests: operators made as the CLI makes them, signed in through their
// one-time link, and console calls carrying the session cookie, the environment header and the console's Origin.
import type { Role } from "@tessera/sdk/contract";
import type { TestApp } from "./helpers.js";

export const CONSOLE_ORIGIN = "http://localhost:8080";

export interface Operator {
  email: string;
  cookie: string;
  password: string;
}

/** Creates the operator with `role` on `projectIds` and signs it in through its link; answers its session cookie. */
export async function operator(t: TestApp, email: string, role: Role, projectIds: string[] | "all"): Promise<Operator> {
  const { link } = await t.services.operators.create({
    email,
    role,
    projectIds: projectIds === "all" ? [] : projectIds,
    allProjects: projectIds === "all",
  });
  const token = new URL(link.replace("#/welcome?", "?")).searchParams.get("token")!;
  const password = `pw-${email}-long-enough`;
  const res = await t.app.inject({
    method: "POST",
    url: "/console/api/link",
    headers: { origin: CONSOLE_ORIGIN },
    payload: { token, password },
  });
  if (res.statusCode !== 200) throw new Error(`link sign-in failed: ${res.statusCode} ${res.body}`);
  const set = String(res.headers["set-cookie"]);
  return { email, password, cookie: set.split(";")[0]! };
}

/** A console call: the session cookie, the environment shown, and the console's own Origin on changes. */
export function consoleCall(
  t: TestApp,
  op: Operator,
  environmentId: string,
  method: "GET" | "POST" | "PATCH" | "DELETE",
  url: string,
  payload?: unknown,
  headers: Record<string, string> = {},
) {
  return t.app.inject({
    method,
    url,
    headers: {
      cookie: op.cookie,
      "x-tessera-environment": environmentId,
      ...(method === "GET" ? {} : { origin: CONSOLE_ORIGIN }),
      ...headers,
    },
    ...(payload === undefined ? (method === "GET" ? {} : { payload: {} }) : { payload: payload as object }),
  });
}

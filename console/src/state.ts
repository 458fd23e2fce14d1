// The console's state as signals (docs/console.md): the session, the project and environment shown, the current route.
// Screens read these; the actions here change them.
import { computed, effect, signal } from "@preact/signals";
import type { ConsoleSession, Role } from "@tessera/sdk/contract";
import { ApiError, get, post, useEnvironment, whenSignedOut } from "./api.js";

export type Route = { screen: string; id?: string; params: URLSearchParams };

/** undefined while loading, null when signed out. */
export const session = signal<ConsoleSession | null | undefined>(undefined);
export const projectId = signal<string>(localStorage.getItem("tessera.project") ?? "");
export const environmentId = signal<string>(localStorage.getItem("tessera.environment") ?? "");

export const project = computed(() => session.value?.projects.find((p) => p.id === projectId.value) ?? session.value?.projects[0]);
export const environment = computed(() => {
  const envs = project.value?.environments ?? [];
  return envs.find((e) => e.id === environmentId.value) ?? envs[0];
});
export const role = computed<Role>(() => project.value?.role ?? "viewer");
export const can = (needs: Role) => {
  const rank = { viewer: 0, analyst: 1, owner: 2 };
  return rank[role.value] >= rank[needs];
};

function parse(hash: string): Route {
  const [path = "", qs = ""] = hash.replace(/^#\/?/, "").split("?");
  const [screen = "overview", id] = path.split("/").map(decodeURIComponent);
  return { screen: screen || "overview", id, params: new URLSearchParams(qs) };
}

export const route = signal<Route>(parse(location.hash));
addEventListener("hashchange", () => {
  route.value = parse(location.hash);
});

export function go(path: string): void {
  location.hash = `#/${path}`;
}

// Every /v3 call carries the environment shown; the choice survives a reload.
effect(() => {
  const env = environment.value;
  useEnvironment(env?.id ?? "");
  if (env) localStorage.setItem("tessera.environment", env.id);
  if (project.value) localStorage.setItem("tessera.project", project.value.id);
});

whenSignedOut(() => {
  session.value = null;
});

export async function loadSession(): Promise<void> {
  try {
    session.value = await get<ConsoleSession>("/console/api/session");
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) session.value = null;
    else throw err;
  }
}

export async function signIn(email: string, password: string): Promise<void> {
  session.value = await post<ConsoleSession>("/console/api/sign-in", { email, password });
}

export async function useLink(token: string, password: string): Promise<void> {
  session.value = await post<ConsoleSession>("/console/api/link", { token, password });
  go("overview");
}

export async function signOut(): Promise<void> {
  await post("/console/api/sign-out");
  session.value = null;
}

export function chooseProject(id: string): void {
  projectId.value = id;
  environmentId.value = "";
}

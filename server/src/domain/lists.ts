// Lists service (GET /v3/lists, POST /v3/lists/:id/add and /remove, GET /v3/lists/:id): an environment's lists, which
// policies test with `in_list`. The test-mode lists force verdicts, so only a development environment takes them.
import { badRequest } from "../errors.js";
import { isTestList } from "../policies/test-mode.js";
import type { EnvironmentRecord } from "../store/projects.js";
import type { Repos } from "../store/repos.js";

export class ListsService {
  constructor(private readonly repos: Repos) {}

  async summaries(environmentId: string) {
    return this.repos.lists.summaries(environmentId);
  }

  async add(env: EnvironmentRecord, listId: string, values: string[], opts: { comment?: string; ttlSeconds?: number }) {
    if (env.name !== "development" && isTestList(listId))
      throw badRequest(`${listId} is a test-mode list: it forces verdicts in development environments only`, "id");
    return this.repos.lists.add(env.id, listId, values, opts);
  }

  async remove(environmentId: string, listId: string, values: string[]) {
    return this.repos.lists.remove(environmentId, listId, values);
  }

  /** A page of the list's live entries, and how many it holds. */
  async entries(environmentId: string, listId: string, page: number, limit: number) {
    const [data, total] = await Promise.all([
      this.repos.lists.entries(environmentId, listId, page, limit),
      this.repos.lists.count(environmentId, listId),
    ]);
    return { id: listId, data, total, page, limit };
  }
}

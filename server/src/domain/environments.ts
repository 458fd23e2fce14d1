// The environment a request acts in, found by what authenticates it: a secret key (server API), a client id (client
// API) or the environment a challenge link names. The HTTP layer's authentication (auth.ts, routes/v3/challenges.ts)
// asks here rather than the repositories.
import type { EnvironmentRecord, ProjectsRepo } from "../store/projects.js";

export class EnvironmentsService {
  constructor(private readonly projects: ProjectsRepo) {}

  /** The environment of a secret key not revoked. */
  bySecret(secret: string): Promise<EnvironmentRecord | undefined> {
    return this.projects.environmentBySecret(secret);
  }

  byClientId(clientId: string): Promise<EnvironmentRecord | undefined> {
    return this.projects.environmentByClientId(clientId);
  }

  byId(id: string): Promise<EnvironmentRecord | undefined> {
    return this.projects.environmentById(id);
  }
}

// All repositories over one store; the only way the rest of the server reaches the database.
import type { Kysely } from "kysely";
import type { Dialect, Store } from "./db.js";
import { DevicesRepo } from "./devices.js";
import { EvaluationsRepo } from "./evaluations.js";
import { FingerprintsRepo } from "./fingerprints.js";
import { ProjectsRepo } from "./projects.js";
import type { Database } from "./schema.js";
import { UsersRepo } from "./users.js";

export interface Repos {
  db: Kysely<Database>;
  dialect: Dialect;
  projects: ProjectsRepo;
  users: UsersRepo;
  fingerprints: FingerprintsRepo;
  devices: DevicesRepo;
  evaluations: EvaluationsRepo;
}

export function createRepos(store: Store): Repos {
  const { db } = store;
  return {
    db,
    dialect: store.dialect,
    projects: new ProjectsRepo(db),
    users: new UsersRepo(db),
    fingerprints: new FingerprintsRepo(db),
    devices: new DevicesRepo(db),
    evaluations: new EvaluationsRepo(db),
  };
}

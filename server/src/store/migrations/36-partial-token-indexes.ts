// Migration 36 (docs/storage.md, "What an evaluation writes"): the devices' indexes of their previous and recognised
// tokens hold only the devices that have one. Most devices have neither (a token moves on a confirmation, a browser is
// recognised by its fingerprint rarely), yet every new device inserted a null entry into each: on the embedded store
// two pages written per commit that makes a device (2.4 frames of 4 KiB per never-seen browser's evaluation when a
// batch holds one: bench/wal-pages.ts). Their only readers look a token up by value (`previous_token = ?`,
// `recognised_token = ?`: store/devices.ts), which implies `is not null`, so both stores still read these indexes.
import { type Kysely, sql } from "kysely";
import { seedPlannerStatistics } from "./007-sqlite-planner-hints.js";

const TOKENS = [
  ["devices_env_previous_token", "previous_token"],
  ["devices_env_recognised_token", "recognised_token"],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [name, column] of TOKENS) {
    await db.schema.dropIndex(name).execute();
    await db.schema.createIndex(name).on("devices").columns(["environment_id", column]).where(sql.ref(column), "is not", null).execute();
  }
  // Embedded store: the rebuilt indexes' planner statistics until PRAGMA optimize measures them (as migration 007's).
  await seedPlannerStatistics(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [name, column] of TOKENS) {
    await db.schema.dropIndex(name).execute();
    await db.schema.createIndex(name).on("devices").columns(["environment_id", column]).execute();
  }
}

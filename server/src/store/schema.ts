// Row types of every table, composed per area so each area's migration and repository own their tables.
// Conventions: ids are text; times are milliseconds since the epoch (bigint); booleans are 0/1 integers;
// JSON is stored as text. These hold on both SQLite and PostgreSQL, so one query serves both.
import type { ChallengeTables } from "./tables/challenges.js";
import type { ConsoleTables } from "./tables/console.js";
import type { CoreTables } from "./tables/core.js";
import type { FamiliarityTables } from "./tables/familiarity.js";
import type { JobTables } from "./tables/jobs.js";
import type { RiskTables } from "./tables/risk.js";
import type { WebhookTables } from "./tables/webhooks.js";

export interface Database extends CoreTables, FamiliarityTables, RiskTables, ChallengeTables, WebhookTables, ConsoleTables, JobTables {}

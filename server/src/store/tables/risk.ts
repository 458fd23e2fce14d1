// Tables of the risk area (owned by its migration and repositories).
// biome-ignore lint/suspicious/noEmptyInterface: filled in by the risk area.
export interface RiskTables {}

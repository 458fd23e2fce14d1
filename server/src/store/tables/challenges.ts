// Tables of the challenges area (owned by its migration and repositories).
// biome-ignore lint/suspicious/noEmptyInterface: filled in by the challenges area.
export interface ChallengesTables {}

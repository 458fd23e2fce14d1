// Times are stored as milliseconds since the epoch and answered as ISO 8601 with milliseconds and Z.
export const now = (): number => Date.now();
export const iso = (ms: number): string => new Date(ms).toISOString();
export const isoOrUndefined = (ms: number | null | undefined): string | undefined => (ms == null ? undefined : iso(ms));

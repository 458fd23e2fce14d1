// The project's device limit for account sharing, defined once: the number every project starts with, and the
// project's own setting that replaces it. The default policies (policies/defaults.ts), the sharing check
// (checks/families/sharing.ts), the challenge page (challenges/wire.ts) and the console's settings all read it here.
// A leaf: the checks read it, and the default policies name the checks.

export const DEFAULT_DEVICE_LIMIT = 3;

/** The project's device limit for account sharing: its setting, else the default. */
export function projectDeviceLimit(settings: { default_device_limit?: number }): number {
  return settings.default_device_limit ?? DEFAULT_DEVICE_LIMIT;
}

// The stores the store suites run on (helpers.ts describeStores): both by default, or the one TESSERA_TEST_STORES names
// (`sqlite` or `postgres`) for a faster local loop. CI must test both: with CI=true the setting is refused, not obeyed,
// so a CI run can never pass having silently tested one store.
export type StoreKind = "sqlite" | "postgres";

export const ALL_STORES: readonly StoreKind[] = ["sqlite", "postgres"];

export function testStores(env: NodeJS.ProcessEnv = process.env): StoreKind[] {
  const raw = env.TESSERA_TEST_STORES?.trim();
  if (!raw) return [...ALL_STORES];
  const named = raw.split(",").map((s) => s.trim());
  const unknown = named.filter((s) => !(ALL_STORES as readonly string[]).includes(s));
  if (unknown.length) throw new Error(`TESSERA_TEST_STORES=${raw}: unknown store ${unknown.join(", ")} (sqlite, postgres)`);
  const stores = ALL_STORES.filter((s) => named.includes(s));
  if (env.CI === "true" && stores.length < ALL_STORES.length)
    throw new Error(`TESSERA_TEST_STORES=${raw} with CI=true: CI tests every store; unset TESSERA_TEST_STORES`);
  return stores;
}

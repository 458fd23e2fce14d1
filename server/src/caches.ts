// The two kinds of per-process cache the server keeps: bounded maps of values derived from requests, and short-lived
// copies of store reads on the evaluate hot path.

/**
 * A Map holding at most `max` entries: adding one more forgets the oldest added. For caches keyed by what requests
 * carry (user agents, time zones, addresses), which must not grow without bound.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly max: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.size >= this.max && !this.has(key)) this.delete(this.keys().next().value as K);
    return super.set(key, value);
  }
}

/**
 * Store reads trusted for `ttlMs`: another instance's write shows here within that delay. A write through this
 * instance calls `invalidate` once it is made, and shows at once: a read that was under way meanwhile (it may have
 * read the old value) is answered but not kept.
 */
export class ShortCache<V> {
  private readonly entries: BoundedMap<string, { at: number; value: V }>;
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    max = 10_000,
  ) {
    this.entries = new BoundedMap(max);
  }

  async get(key: string, load: () => Promise<V>): Promise<V> {
    const at = Date.now();
    const hit = this.entries.get(key);
    if (hit && at - hit.at < this.ttlMs) return hit.value;
    const generation = this.generation;
    const value = await load();
    if (generation === this.generation) this.entries.set(key, { at, value });
    return value;
  }

  /** Forgets `key` (every key without one), and whatever reads are under way. */
  invalidate(key?: string): void {
    this.generation++;
    if (key === undefined) this.entries.clear();
    else this.entries.delete(key);
  }
}

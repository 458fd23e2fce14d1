// A set of IP ranges with a value each, looked up by binary search over sorted starts (IPv4 and IPv6 apart).
import type { IpKey } from "./ip.js";

export class RangeTable<T> {
  private v4: { start: number; end: number; value: T }[] = [];
  private v6: { start: bigint; end: bigint; value: T }[] = [];
  private sorted = true;

  get size(): number {
    return this.v4.length + this.v6.length;
  }

  add(first: IpKey, last: IpKey, value: T): void {
    if (first.v === 4 && last.v === 4) this.v4.push({ start: first.n, end: last.n, value });
    else if (first.v === 6 && last.v === 6) this.v6.push({ start: first.n, end: last.n, value });
    this.sorted = false;
  }

  /** Sorts once after loading; lookups before `seal` sort lazily. */
  seal(): this {
    this.v4.sort((a, b) => a.start - b.start);
    this.v6.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
    this.sorted = true;
    return this;
  }

  get(ip: IpKey): T | undefined {
    if (!this.sorted) this.seal();
    const list: { start: number | bigint; end: number | bigint; value: T }[] = ip.v === 4 ? this.v4 : this.v6;
    let lo = 0;
    let hi = list.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if ((list[mid] as { start: number | bigint }).start <= ip.n) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    const hit = found >= 0 ? list[found] : undefined;
    return hit && ip.n <= hit.end ? hit.value : undefined;
  }
}

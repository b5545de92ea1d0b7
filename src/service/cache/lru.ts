/**
 * A bounded map that forgets the least recently used entry first (Map keeps insertion
 * order). Bounded by entry count and, when a weigher is given, by total weight (bytes), so
 * a few huge entries cannot exhaust memory.
 */
export class LruMap<K, V> {
  private readonly map = new Map<K, V>();
  private weight = 0;

  constructor(
    readonly capacity: number,
    private readonly maxWeight = Infinity,
    private readonly weigh: (v: V) => number = () => 0,
  ) {
    if (!(capacity >= 0)) throw new RangeError(`capacity must be ≥ 0 (got ${capacity})`);
  }

  get size(): number {
    return this.map.size;
  }

  /** Total weight of the entries held. */
  get totalWeight(): number {
    return this.weight;
  }

  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v === undefined) return undefined;
    this.map.delete(key);
    this.map.set(key, v);
    return v;
  }

  /** Reads without refreshing the entry's age. */
  peek(key: K): V | undefined {
    return this.map.get(key);
  }

  /** Stores and returns the entries evicted to make room (the new one itself if it alone is too heavy). */
  set(key: K, value: V): Array<[K, V]> {
    this.delete(key);
    const w = this.weigh(value);
    if (this.capacity === 0 || w > this.maxWeight) return [[key, value]];
    this.map.set(key, value);
    this.weight += w;
    const evicted: Array<[K, V]> = [];
    while (this.map.size > this.capacity || this.weight > this.maxWeight) {
      const oldest = this.map.keys().next().value as K;
      evicted.push([oldest, this.map.get(oldest)!]);
      this.delete(oldest);
    }
    return evicted;
  }

  delete(key: K): void {
    const v = this.map.get(key);
    if (v === undefined) return;
    this.weight -= this.weigh(v);
    this.map.delete(key);
  }

  values(): IterableIterator<V> {
    return this.map.values();
  }
}

/** A bounded map that forgets the least recently used entry first (Map keeps insertion order). */
export class LruMap<K, V> {
  private readonly map = new Map<K, V>();

  constructor(readonly capacity: number) {
    if (!(capacity >= 0)) throw new RangeError(`capacity must be ≥ 0 (got ${capacity})`);
  }

  get size(): number {
    return this.map.size;
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

  /** Stores and returns the entries evicted to make room. */
  set(key: K, value: V): Array<[K, V]> {
    this.map.delete(key);
    if (this.capacity === 0) return [[key, value]];
    this.map.set(key, value);
    const evicted: Array<[K, V]> = [];
    while (this.map.size > this.capacity) {
      const oldest = this.map.keys().next().value as K;
      evicted.push([oldest, this.map.get(oldest)!]);
      this.map.delete(oldest);
    }
    return evicted;
  }

  values(): IterableIterator<V> {
    return this.map.values();
  }
}

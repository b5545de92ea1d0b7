import { deserialize, serialize } from 'node:v8';
import type { Redis } from 'ioredis';
import type { SolveResult } from '../solve/result.js';
import { withTimeout } from './redis.js';

export interface SharedCacheOptions {
  /** How long an entry lives (default 24 h). */
  readonly ttlMs?: number;
  /** Most entries kept; the oldest go first (default 100 000). */
  readonly maxEntries?: number;
  /** Bound on each Redis round trip (a cache that does not answer is a miss, never a hang). */
  readonly timeoutMs?: number;
  /** Key namespace (default `batchwise`). */
  readonly namespace?: string;
}

export interface SharedEntry {
  readonly result: SolveResult;
  readonly warmStart: { readonly values: Float64Array; readonly policy: Int32Array };
}


/**
 * Stores one entry and trims the index to the size bound in one step, so replicas racing on
 * the same keys cannot push the cache past it. Entries expire on their own (TTL); the index
 * entry of an expired key is removed when the trim reaches it.
 */
const STORE_LUA = `
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[5])
if over > 0 then
  local old = redis.call('ZPOPMIN', KEYS[2], over)
  for i = 1, #old, 2 do redis.call('DEL', ARGV[6] .. old[i]) end
end
return 1`;

/**
 * Solved scenarios shared by every replica and worker through Redis, keyed by the canonical
 * scenario key (the same key as the in-process LRU). Workers write; servers read before they
 * enqueue, so an identical request on another replica is answered without a solve.
 */
export class SharedResultCache {
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly timeoutMs: number;
  private readonly index: string;
  private readonly prefix: string;

  constructor(
    private readonly redis: Redis,
    opts: SharedCacheOptions = {},
  ) {
    this.ttlMs = opts.ttlMs ?? 24 * 3600 * 1000;
    this.maxEntries = opts.maxEntries ?? 100_000;
    this.timeoutMs = opts.timeoutMs ?? 3000;
    this.index = `${opts.namespace ?? 'batchwise'}:cache:index`;
    this.prefix = `${opts.namespace ?? 'batchwise'}:cache:e:`;
  }

  /** Entries for the keys present, by key; Redis errors and timeouts count as misses. */
  async getMany(canonicalKeys: readonly string[]): Promise<Map<string, SharedEntry>> {
    const out = new Map<string, SharedEntry>();
    for (let i = 0; i < canonicalKeys.length; i += 500) {
      const slice = canonicalKeys.slice(i, i + 500);
      let bufs: Array<Buffer | null>;
      try {
        bufs = await withTimeout(this.redis.mgetBuffer(...slice.map((k) => this.prefix + k)), this.timeoutMs, 'shared cache read');
      } catch {
        return out;
      }
      bufs.forEach((b, j) => {
        if (b) out.set(slice[j], deserialize(b) as SharedEntry);
      });
    }
    return out;
  }

  /** The store as a command for a pipeline (one round trip with the result write). */
  storeArgs(canonical: string, entry: SharedEntry): [string, number, string, string, Buffer, number, number, string, number, string] {
    return [STORE_LUA, 2, this.prefix + canonical, this.index, serialize(entry), this.ttlMs, Date.now(), canonical, this.maxEntries, this.prefix];
  }

  async store(canonical: string, entry: SharedEntry): Promise<void> {
    await withTimeout(
      this.redis.eval(STORE_LUA, 2, this.prefix + canonical, this.index, serialize(entry), this.ttlMs, Date.now(), canonical, this.maxEntries, this.prefix),
      this.timeoutMs,
      'shared cache write',
    );
  }

  /** Entries in the index (an upper bound on live entries: expired ones leave at the next trim). */
  async size(): Promise<number> {
    return withTimeout(this.redis.zcard(this.index), this.timeoutMs, 'shared cache size');
  }
}

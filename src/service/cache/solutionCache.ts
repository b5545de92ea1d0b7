import type { ValidatedScenario } from '../../model/scenario.js';
import type { SolveResult } from '../../solve/result.js';
import type { WarmStart } from '../../solve/solveScenario.js';
import { canonicalKey, distance, features, shapeKey } from './canonical.js';
import { LruMap } from './lru.js';

export interface CachedSolution {
  readonly key: string;
  readonly shape: string;
  readonly features: Float64Array;
  readonly result: SolveResult;
  readonly warmStart: { readonly values: Float64Array; readonly policy: Int32Array };
}

/**
 * Solved scenarios by canonical key, least recently used out first. Besides exact hits it
 * answers "the nearest solution of the same shape", which a new solve starts from.
 */
export class SolutionCache {
  private readonly lru: LruMap<string, CachedSolution>;

  /** At most `capacity` solutions and about `maxBytes` of their arrays (values, policies, results). */
  constructor(capacity: number, maxBytes = 256 * 1024 * 1024) {
    this.lru = new LruMap(capacity, maxBytes, approximateBytes);
  }

  get size(): number {
    return this.lru.size;
  }

  get(key: string): CachedSolution | undefined {
    return this.lru.get(key);
  }

  store(scenario: ValidatedScenario, result: SolveResult, warmStart: CachedSolution['warmStart'], key = canonicalKey(scenario)): void {
    this.lru.set(key, { key, shape: shapeKey(scenario), features: features(scenario), result, warmStart });
  }

  /** The cached solution of the same shape closest to the scenario, if any. A linear scan: the cache is small. */
  nearest(scenario: ValidatedScenario): WarmStart | undefined {
    const shape = shapeKey(scenario);
    const f = features(scenario);
    let best: CachedSolution | undefined;
    let bestD = Infinity;
    for (const c of this.lru.values()) {
      if (c.shape !== shape) continue;
      const d = distance(f, c.features);
      if (d < bestD) {
        bestD = d;
        best = c;
      }
    }
    return best?.warmStart;
  }
}

/** Bytes an entry holds, to the accuracy that matters: its per-state arrays. */
function approximateBytes(c: CachedSolution): number {
  const states = c.result.policy?.actions.length ?? 0;
  const deviations = c.result.policy?.deviations.length ?? 0;
  return c.warmStart.values.byteLength + c.warmStart.policy.byteLength + 8 * states + 48 * deviations + 1024;
}

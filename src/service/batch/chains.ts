import { features, shapeKey } from '../cache/canonical.js';
import type { BatchTask } from './executor.js';

/**
 * Orders tasks so that neighbours sit next to each other: by shape (B and solver settings),
 * then the weight ratio, the service-time fit, and last the arrival rate, so a sweep over λ
 * becomes one run in which each solve starts from the previous one.
 */
export function orderForWarmStarts(tasks: readonly BatchTask[]): BatchTask[] {
  const keyed = tasks.map((t) => ({ t, shape: shapeKey(t.scenario), f: features(t.scenario) }));
  // features: [ln λ, ln l(1), ln l(B), cv, weight ratio]; λ last.
  const order = [4, 2, 1, 3, 0];
  keyed.sort((a, b) => {
    if (a.shape !== b.shape) return a.shape < b.shape ? -1 : 1;
    for (const i of order) if (a.f[i] !== b.f[i]) return a.f[i] - b.f[i];
    return a.t.index - b.t.index;
  });
  return keyed.map((k) => k.t);
}

interface Chain {
  /** First index of this chain: its item there has no predecessor to start from. */
  readonly start: number;
  next: number;
  end: number;
}

/**
 * Hands out ordered items to `lanes` parallel runners as contiguous chains, so each runner
 * walks neighbours in order. A runner whose chain is done takes the back half of the
 * longest remaining chain (work stealing), which keeps both cores busy to the end.
 */
export class ChainScheduler<T> {
  private readonly items: readonly T[];
  private readonly chains: Chain[] = [];
  private readonly laneChain: Array<Chain | undefined>;

  constructor(items: readonly T[], lanes: number) {
    this.items = [...items];
    const n = Math.max(1, Math.min(lanes, items.length));
    for (let i = 0; i < n; i++) {
      const start = Math.floor((i * items.length) / n);
      this.chains.push({ start, next: start, end: Math.floor(((i + 1) * items.length) / n) });
    }
    this.laneChain = [...this.chains];
  }

  /** The next item for a lane, and the item before it in its chain (undefined at a chain's start). */
  next(lane: number): { item: T; previous: T | undefined } | undefined {
    let chain = this.laneChain[lane];
    if (!chain || chain.next >= chain.end) {
      chain = this.steal();
      this.laneChain[lane] = chain;
      if (!chain) return undefined;
    }
    const previous = chain.next > chain.start ? this.items[chain.next - 1] : undefined;
    return { item: this.items[chain.next++], previous };
  }

  /** Splits the longest remaining chain; the caller takes its back half (or its last item). */
  private steal(): Chain | undefined {
    let victim: Chain | undefined;
    for (const c of this.chains) if (c.end - c.next > (victim ? victim.end - victim.next : 0)) victim = c;
    if (!victim) return undefined;
    const mid = victim.next + Math.ceil((victim.end - victim.next) / 2);
    const at = mid < victim.end ? mid : victim.next;
    const chain: Chain = { start: at, next: at, end: victim.end };
    victim.end = at;
    this.chains.push(chain);
    return chain;
  }
}

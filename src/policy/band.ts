import { ChainMemory } from './chainMemory.js';

/**
 * A Markov (or, with the tail extrapolation, pseudo-Markov) chain with a banded transition
 * matrix, plus one reward and one sojourn per state: what `solveChain` (chain.ts) reduces.
 * Its arrays are views into a wasm memory that also holds its reduction (chainMemory.ts).
 */
export class BandChain {
  /** Entry (i, j) lives at a[i·width + (j − i + lo)]. */
  readonly a: Float64Array;
  readonly reward: Float64Array;
  readonly time: Float64Array;
  readonly width: number;
  /** Where the arrays live, with room for the reduction and the kernels on it. */
  readonly memory: ChainMemory;

  constructor(
    readonly n: number,
    /** Largest downward jump. */
    readonly lo: number,
    /** Largest upward jump. */
    readonly hi: number,
    /**
     * States per queue level (phases × modes): where the rows repeat shifted by this much, the
     * reduction looks for the level-to-level fixed point it then reaches (chainSweep.ts).
     */
    readonly period = 1,
    /** Doubles of room in the chain's memory for what it is built from (ChainMemory.extra). */
    extra = 0,
  ) {
    this.width = lo + hi + 1;
    this.memory = new ChainMemory(n, this.width, Math.max(lo, hi), extra);
    this.a = this.memory.a;
    this.reward = this.memory.reward;
    this.time = this.memory.time;
  }

  index(i: number, j: number): number {
    return i * this.width + (j - i + this.lo);
  }

  add(i: number, j: number, v: number): void {
    this.a[this.index(i, j)] += v;
  }
}

import type { SimPolicy } from './types.js';

export interface AimdOptions {
  /** The latency objective (Clipper's slo_micros), here in seconds, compared with a batch's processing time. */
  readonly latencySlo: number;
  /** Added to the batch-size cap after a full batch that met the objective. */
  readonly additiveIncrease: number;
  /** The cap is multiplied by this (Clipper: 0.9, "back off by 10 %") after a batch over the objective. */
  readonly multiplicativeDecrease: number;
  /** Upper bound of the cap (the model's max batch size). */
  readonly maxBatchSize: number;
  /** Cap at the start. */
  readonly initialBatchSize: number;
}

/**
 * Clipper's adaptive batching (Crankshaw et al., NSDI 2017, §4.3): serve as soon as the
 * model is free, up to a batch-size cap found by AIMD: increase the cap additively while the
 * processing time of a batch stays within the latency objective, cut it multiplicatively
 * when a batch exceeds it. The cap grows only after a batch that actually reached it: a
 * smaller batch says nothing about whether a larger one would meet the objective.
 */
export class AimdPolicy implements SimPolicy {
  readonly padding = null;
  readonly sustainedBatch = 0;
  readonly name: string;
  private cap: number;

  constructor(private readonly o: AimdOptions) {
    this.cap = o.initialBatchSize;
    const us = Math.round(o.latencySlo * 1e6 * 1e6) / 1e6;
    this.name =
      `aimd:slo_micros=${us},additive_increase=${o.additiveIncrease},` +
      `multiplicative_decrease=${o.multiplicativeDecrease},max_batch_size=${o.maxBatchSize},initial_batch_size=${o.initialBatchSize}`;
  }

  /** The current cap (integer part of the AIMD state). */
  get batchCap(): number {
    return Math.max(1, Math.floor(this.cap));
  }

  decide(queue: number): number {
    const cap = this.batchCap;
    return queue < cap ? queue : cap;
  }

  wakeAt(): number {
    return Infinity;
  }

  onBatchDone(size: number, serviceTime: number): void {
    if (serviceTime > this.o.latencySlo) {
      this.cap = Math.max(1, Math.floor(this.cap * this.o.multiplicativeDecrease));
    } else if (size >= this.batchCap) {
      this.cap = Math.min(this.o.maxBatchSize, this.cap + this.o.additiveIncrease);
    }
  }

  reset(): void {
    this.cap = this.o.initialBatchSize;
  }
}

/**
 * Today's baselines for several classes on one accelerator (issue 19), each as the per-class
 * SimPolicies the one engine runs: exhaustive service of the longest queue, per-class control
 * limits served round-robin, FIFO by oldest request (per-class greedy: the engine serves the
 * oldest head), Triton-like per-model settings (one dynamic batcher per class, max_queue_delay
 * from the oldest request; the engine serves the oldest head among the batchers that fire), and
 * the exact optimum's table. The parameterised ones are tuned on a small grid by short
 * simulations on their own seed (`tune`), so the comparison is fair to them.
 */
import type { ClassesParams } from '../model/classes/params.js';
import { greedyPolicy } from '../policy/policy.js';
import { jointPolicies } from '../sim/joint/chooser.js';
import { LongestQueueChooser, OptimalChooser, RoundRobinChooser, type JointTable } from '../sim/joint/rules.js';
import { simulateClasses, type ClassesSimulateOptions } from '../sim/joint/simulate.js';
import { TritonPolicy } from '../sim/policies/triton.js';
import type { SimPolicy } from '../sim/policies/types.js';
import { tablePolicy } from '../sim/simulate.js';

/** A baseline as the table states it, and how to build its policies afresh. */
export interface Baseline {
  readonly name: string;
  /** Its parameters in words ('' when it has none). */
  readonly parameters: string;
  build(): SimPolicy[];
}

const maxBatches = (p: ClassesParams): number[] => p.classes.map((c) => c.maxBatchSize);

export function optimalBaseline(p: ClassesParams, table: JointTable): Baseline {
  const S = table.maxQueue.join(', ');
  return { name: 'exact optimum', parameters: `joint table over n, S = (${S}), clamped past it`, build: () => jointPolicies(new OptimalChooser(table), maxBatches(p)) };
}

export function longestQueueBaseline(p: ClassesParams): Baseline {
  return { name: 'exhaustive longest queue', parameters: 'batches of min(n_c, B_c)', build: () => jointPolicies(new LongestQueueChooser(maxBatches(p)), maxBatches(p)) };
}

export function roundRobinBaseline(p: ClassesParams, limits: readonly number[]): Baseline {
  return { name: 'control limits, round-robin', parameters: `M = (${limits.join(', ')})`, build: () => jointPolicies(new RoundRobinChooser(limits, maxBatches(p)), maxBatches(p)) };
}

export function fifoBaseline(p: ClassesParams): Baseline {
  return { name: 'FIFO by oldest request', parameters: 'greedy, min(n_c, B_c)', build: () => p.classes.map((c) => tablePolicy(greedyPolicy(c.maxBatchSize), c.maxBatchSize)) };
}

export function tritonBaseline(p: ClassesParams, delays: readonly number[]): Baseline {
  const us = delays.map((d) => `${Math.round(d * 1e6)}`).join(', ');
  return {
    name: 'Triton-like per model',
    parameters: `max_queue_delay = (${us}) µs, max_batch_size = B_c`,
    build: () => p.classes.map((c, i) => new TritonPolicy({ maxQueueDelay: delays[i], preferredBatchSizes: [], maxBatchSize: c.maxBatchSize })),
  };
}

/** Control limits tried per class: 1..4, then 6, 8, 12, 16, … up to B_c. */
export function limitGrid(B: number): number[] {
  const out: number[] = [];
  for (const m of [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64]) if (m <= B) out.push(m);
  return out;
}

/** Triton delays tried per class: 0 and ¼, ½, 1, 2 full-batch service times l_c(B_c). */
export function delayGrid(l: number): number[] {
  return [0, 0.25, 0.5, 1, 2].map((k) => k * l);
}

/** Every combination of one value per class. */
function product(grids: readonly number[][]): number[][] {
  return grids.reduce<number[][]>((acc, g) => acc.flatMap((xs) => g.map((v) => [...xs, v])), [[]]);
}

/** The grid point with the least simulated g (runs on `o`'s seed, kept apart from the table's). */
export function tune(p: ClassesParams, grids: readonly number[][], make: (x: readonly number[]) => Baseline, o: ClassesSimulateOptions): { best: Baseline; tried: number } {
  let best: Baseline | null = null;
  let bestG = Infinity;
  const points = product(grids);
  for (const x of points) {
    const b = make(x);
    const g = simulateClasses(p, b.build(), o).averageCost;
    if (g < bestG) {
      bestG = g;
      best = b;
    }
  }
  return { best: best!, tried: points.length };
}

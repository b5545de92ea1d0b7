import { sweepWork } from '../../model/classes/bellman.js';
import { compileClasses } from '../../model/classes/compile.js';
import type { ClassesParams } from '../../model/classes/params.js';

/**
 * The box S = (S_1, …, S_C) a multi-class solve starts from: a fixed S_c as given; an automatic one
 * from `start` (a warm start's box, or the caller's first S_c), else room for a few full batches
 * and twice the largest jump past the top. The largest jump comes from the kernels, whatever S: a
 * first S_c well above it keeps the extrapolated overflow short beside the box (at S_c = 20
 * against jumps of 90 RVI diverged).
 */
export function firstBox(p: ClassesParams, start?: readonly number[]): number[] {
  const probe = compileClasses(p, p.classes.map(() => 2));
  const reach = Array.from(probe.padDims, (d) => d - 3);
  return p.classes.map((c, i) => (c.maxQueue > 0 ? c.maxQueue : Math.max(start?.[i] ?? Math.max(16, 3 * c.maxBatchSize + 8, 2 * reach[i]), 2)));
}

/**
 * The joint sweep's work (multiply-adds, the AUTO rule's measure) at the box a cold solve starts
 * from: what a single Solve's first box weighs when it asks whether the GPU pays off (backends.ts).
 */
export function firstBoxWork(p: ClassesParams): number {
  return sweepWork(compileClasses(p, firstBox(p)));
}

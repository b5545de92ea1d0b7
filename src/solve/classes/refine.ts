import type { BellmanOperator } from '../operator.js';
import type { JointResidualEvaluator } from '../types.js';

/** Refinement rounds at most; each costs one f64 sweep on the CPU and one f32 evaluation on the GPU. */
const MAX_ROUNDS = 8;
/** A round whose interval is this many times the best one so far ends the refinement. */
const RUNAWAY = 4;

export interface Refined {
  /** The best values found (narrowest Odoni interval of their f64 step). */
  readonly values: Float64Array;
  /** f64 Bellman steps taken on the CPU (one per round). */
  readonly rounds: number;
  /** f32 evaluation sweeps on the GPU over every round. */
  readonly gpuSweeps: number;
}

/**
 * Mixed-precision refinement of relative values toward the f64 fixed point of `op`: each round one
 * f64 Bellman step on the CPU (the greedy policy π and the gap r = T h − h, whose min and max are the
 * Odoni bounds), then on the GPU the evaluation of π with per-state costs (r − min r)/(max r − min r)
 * in f32 (the correction δ with (I − P̃_π)·δ = r − ĝ, scaled to [0, 1] so that f32's relative
 * precision applies to what is left, not to h), and h ← h + span·δ: a policy-iteration step whose
 * evaluation is in f32 on the correction only. It stops when the interval meets the tolerance, when
 * it fails to narrow under an unchanged policy or runs away (RUNAWAY), after MAX_ROUNDS, or when the GPU gives nothing; the
 * certificate is still the caller's f64 RVI from the best values.
 */
export async function refineOnGpu(op: BellmanOperator, evaluate: JointResidualEvaluator, start: Float64Array, tolerance: number, signal?: AbortSignal): Promise<Refined> {
  const n = op.states;
  let h = Float64Array.from(start);
  let best = h;
  let bestWidth = Infinity;
  const gap = new Float64Array(n);
  const policy = new Int32Array(n);
  let sweeps = 0;
  let rounds = 0;
  let previous: Int32Array | undefined;
  while (rounds < MAX_ROUNDS) {
    op.step(h, gap, policy, signal);
    rounds++;
    let lo = Infinity;
    let hi = -Infinity;
    for (let x = 0; x < n; x++) {
      lo = Math.min(lo, gap[x]);
      hi = Math.max(hi, gap[x]);
    }
    const width = hi - lo;
    // A jump far past the best interval: the correction's quadratic extrapolation past the tops ran away (the
    // signed rows of docs/model.md §10); the f64 RVI from the best values is the safer way on.
    if (!Number.isFinite(width) || width > RUNAWAY * bestWidth) break;
    // As in policy iteration the interval need not narrow while the policy still improves; it must once the policy holds.
    const policyHeld = previous !== undefined && previous.every((a, x) => a === policy[x]);
    if (width < bestWidth) {
      best = h;
      bestWidth = width;
    } else if (policyHeld) {
      break;
    }
    if (width <= tolerance * Math.abs(lo) || width === 0) break;
    previous = Int32Array.from(policy);
    const resid = Float64Array.from(gap, (g) => (g - lo) / width);
    const d = await evaluate(policy, resid, signal);
    if (!d) break;
    sweeps += d.sweeps;
    const next = new Float64Array(n);
    for (let x = 0; x < n; x++) next[x] = h[x] + width * d.values[x];
    h = next;
  }
  return { values: best, rounds, gpuSweeps: sweeps };
}

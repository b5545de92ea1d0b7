import type { CompiledModel } from '../model/compile.js';
import { bellmanStep } from '../policy/greedy.js';

/**
 * What a model kind supplies so that one relative value iteration loop, its Odoni bounds and
 * its certificate (docs/model.md §3.3–§3.4) run on it unchanged: the number of states of the
 * transformed MDP, its Bellman step, and the reference state whose value is pinned at 0.
 * The single-class (queue, phase) model and the multi-class joint model (§10) both supply one.
 */
export interface BellmanOperator {
  /** States of the transformed MDP (the length of every value, gap and policy vector). */
  readonly states: number;
  /** The state whose relative value is kept at 0 (h ← h + gap − gap[ref]). */
  readonly referenceState: number;
  /** A size to show in progress reports (the single-class S; the joint model's largest S_c). */
  readonly maxQueue: number;
  /**
   * One Bellman step at relative values h: gapOut[x] = min_a [c̃(x,a) + Σ_y p̃(y|x,a)·h(y)] − h(x)
   * (= V_{n+1}(x) − h(x)) and policyOut[x] = the minimising action, in the kind's own encoding.
   */
  step(values: Float64Array, gapOut: Float64Array, policyOut: Int32Array, signal?: AbortSignal): void;
}

/** The single-class compiled model as an operator: exactly `bellmanStep`, reference state (0, 0). */
export function singleClassOperator(model: CompiledModel): BellmanOperator {
  return {
    states: (model.S + 1) * model.M,
    referenceState: 0,
    maxQueue: model.S,
    step: (h, gap, policy, signal) => bellmanStep(model, h, gap, policy, undefined, undefined, signal),
  };
}

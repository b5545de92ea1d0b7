import type { Evaluation } from '../policy/evaluate.js';
import type { ModelParams } from '../model/scenario.js';
import type { Policy } from '../policy/policy.js';
import { describePolicy, type PolicyDescription } from '../solve/result.js';

/**
 * The long-run figures of a policy that do not depend on any weights: the point
 * (E[R], E[P]) it occupies in the latency–power plane, and the rest of docs/model.md §5.
 */
export interface Figures {
  /** E[R], seconds. */
  readonly meanResponseTime: number;
  /** E[P], watts. */
  readonly meanPower: number;
  readonly throughput: number;
  readonly utilization: number;
  readonly meanBatchSize: number;
}

export function figuresOf(e: Evaluation | Figures): Figures {
  return {
    meanResponseTime: e.meanResponseTime,
    meanPower: e.meanPower,
    throughput: e.throughput,
    utilization: e.utilization,
    meanBatchSize: e.meanBatchSize,
  };
}

/** A deterministic policy with its exact figures, as plans report it. */
export interface PlannedPolicy extends Figures {
  /** Its compact form; under MMPP arrivals with one table per phase (docs/model.md §7). */
  readonly policy: PolicyDescription;
}

export function planned(p: ModelParams, policy: Policy, e: Evaluation | Figures): PlannedPolicy {
  return { ...figuresOf(e), policy: describePolicy(p, policy) };
}

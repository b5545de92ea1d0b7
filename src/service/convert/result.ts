import { summarizePolicy, type PolicySummary } from '../../policy/policy.js';
import type { EvaluationResult, SolveResult, SolverFacts } from '../../solve/result.js';
import type { SolverProgress } from '../../solve/types.js';
import type { SolveProgressMessage } from '../messages.js';

/** Solver progress → the SolveProgress message (bounds, S, and the current policy in compact form). */
export function progressToProto(p: SolverProgress, B: number): SolveProgressMessage {
  const policy = summarizePolicy({ actions: p.policy, tailBatch: B }, B);
  return {
    iteration: p.iteration,
    averageCostLower: p.lower,
    averageCostUpper: p.upper,
    maxQueue: p.maxQueue,
    controlLimit: policy.controlLimit,
    policy,
  };
}

type Obj = Record<string, unknown>;

/**
 * A decoded SolveResult (client side, defaults on) → the core's SolveResult: the GPU-only
 * facts are dropped when 0, as the in-process result leaves them out on the CPU.
 */
export function solveResultFromProto(m: unknown): SolveResult {
  const r = m as SolveResult & { solver: SolverFacts & Obj };
  const solver: Obj = { ...r.solver };
  for (const k of ['gpuIterations', 'polishSteps']) if (!solver[k]) delete solver[k];
  return { ...r, policy: policyFromProtoSummary(r.policy), solver: solver as unknown as SolverFacts };
}

export function evaluationFromProto(m: unknown): EvaluationResult {
  const r = m as EvaluationResult;
  return { ...r, policy: policyFromProtoSummary(r.policy) };
}

function policyFromProtoSummary(p: PolicySummary | undefined): PolicySummary {
  return {
    actions: p?.actions ?? [],
    controlLimit: p?.controlLimit ?? 0,
    isControlLimit: p?.isControlLimit ?? false,
    deviations: p?.deviations ?? [],
  };
}

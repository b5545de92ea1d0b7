import { summarizePolicy, type PolicySummary } from '../../policy/policy.js';
import type { EvaluationResult, SolveResult } from '../../solve/result.js';
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

/** Arrays every core result has, even when empty; other empty repeated fields were simply not set. */
const ALWAYS_PRESENT_ARRAYS = new Set(['actions', 'deviations', 'maxQueueTried']);
/** Counters the core leaves out when they do not apply (GPU-only facts). */
const OPTIONAL_COUNTS = new Set(['gpuIterations', 'polishSteps']);

/**
 * Decoded with defaults on, proto3 cannot tell "unset" from "zero": unset sub-messages read
 * as null and unset repeated fields as []. The core leaves such optional parts out (e.g.
 * the per-phase fields of MMPP results on a Poisson scenario, the GPU counters on the CPU),
 * so drop them here and a remote result equals the in-process one.
 */
export function stripUnset(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripUnset);
  if (typeof v !== 'object' || v === null || ArrayBuffer.isView(v)) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v as Obj)) {
    if (x === null || x === undefined) continue;
    if (Array.isArray(x) && x.length === 0 && !ALWAYS_PRESENT_ARRAYS.has(k)) continue;
    if (OPTIONAL_COUNTS.has(k) && x === 0) continue;
    out[k] = stripUnset(x);
  }
  return out;
}

/** A decoded SolveResult (client side, defaults on) → the core's SolveResult. */
export function solveResultFromProto(m: unknown): SolveResult {
  const r = stripUnset(m) as SolveResult;
  return { ...r, policy: policyFromProtoSummary(r.policy) };
}

export function evaluationFromProto(m: unknown): EvaluationResult {
  const r = stripUnset(m) as EvaluationResult;
  return { ...r, policy: policyFromProtoSummary(r.policy) };
}

export function policyFromProtoSummary(p: PolicySummary | undefined): PolicySummary {
  return {
    ...p,
    actions: p?.actions ?? [],
    controlLimit: p?.controlLimit ?? 0,
    isControlLimit: p?.isControlLimit ?? false,
    deviations: p?.deviations ?? [],
  };
}

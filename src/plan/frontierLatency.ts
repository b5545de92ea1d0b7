import type { ModelParams } from '../model/scenario.js';
import { latencyOfEvaluation, type LatencyOutcome } from '../latency/summary.js';
import { evaluatePolicy } from '../policy/evaluate.js';
import type { FrontierVertex } from './frontier.js';

/**
 * The exact response-time percentiles of each frontier vertex (docs/model.md §9), for the
 * frontier drawn in p99. The frontier keeps only each vertex's figures, so the policy is
 * evaluated once more for the detailed evaluation the distribution walks.
 */
export function vertexLatencies(p: ModelParams, vertices: readonly FrontierVertex[]): LatencyOutcome[] {
  return vertices.map((v) => latencyOfEvaluation(p, v.policy, evaluatePolicy(p, v.policy)));
}

/** The p99 of every vertex (s), or the first reason one is missing. */
export function vertexP99s(p: ModelParams, vertices: readonly FrontierVertex[]): { readonly p99: number[] } | { readonly unavailable: string } {
  const p99: number[] = [];
  for (const out of vertexLatencies(p, vertices)) {
    if (!('latency' in out)) return { unavailable: out.latencyUnavailable };
    p99.push(out.latency.p99);
  }
  return { p99 };
}

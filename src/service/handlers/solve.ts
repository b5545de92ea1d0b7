import type { SolverProgress } from '../../solve/types.js';
import { progressInterval } from '../config.js';
import { progressToProto } from '../convert/result.js';
import type { SolveRequest, SolveUpdate } from '../messages.js';
import type { ServerStreamingHandler } from '../rpc/context.js';
import { requalify } from '../rpc/errorTable.js';
import type { SolveOutcome } from '../solving/coordinator.js';
import { throttled } from '../solving/throttle.js';
import { isClassesMessage } from '../convert/classes.js';
import { solveClassesCall } from './solveClasses.js';
import { checkModelWork, onPool, parseScenarioOffThread, type ServiceDeps } from './deps.js';

/**
 * Solve: progress at most once per interval (the newest state each time), then exactly one
 * update with done = true and the result. Cached and shared solves skip straight to it. When the
 * percentiles are wanted and not yet computed, the certified result goes out first (`solved`,
 * done = false) and the percentiles are computed after it: a scheduler gets its policy at the
 * speed of the solve, not of the percentiles (which can take tens of times longer).
 */
export function createSolveHandler(deps: ServiceDeps): ServerStreamingHandler<SolveRequest, SolveUpdate> {
  return async function* solve(request, ctx) {
    // The multi-class form (docs/model.md §10) answers with classesResult.
    if (isClassesMessage(request.scenario)) return yield* solveClassesCall(request, request.scenario, deps, ctx);
    const scenario = await parseScenarioOffThread(request.scenario, deps, ctx).catch((e: unknown) => {
      throw requalify('scenario.', e);
    });
    const B = scenario.params.maxBatchSize;
    ctx.facts.maxBatchSize = B;
    checkModelWork(scenario, deps, ctx, 'the solve needs');
    const interval = progressInterval(request.progressIntervalMs, deps.progressIntervalMs);
    const percentiles = request.skipPercentiles !== true;
    // Percentiles off in the solve itself: they follow the `solved` update (withPercentiles below).
    const stream = throttled<SolverProgress, SolveOutcome>(
      (emit) => deps.coordinator.solveCertified(scenario, { ...onPool(ctx), onProgress: emit, progressIntervalMs: interval, bounded: true, percentiles: false }),
      interval,
    );
    let updates = 0;
    // Errors the solve itself raises (e.g. the automatic S passing maxStates) are about the scenario too.
    const items = (async function* () {
      try {
        yield* stream;
      } catch (e) {
        throw requalify('scenario.', e);
      }
    })();
    for await (const item of items) {
      if ('progress' in item) {
        updates++;
        yield { done: false, progress: progressToProto(item.progress, B), cached: false, warmStarted: false };
        continue;
      }
      const o = item.result;
      Object.assign(ctx.facts, {
        states: o.result.solver.states,
        iterations: o.result.solver.totalIterations,
        backend: o.result.solver.backend,
        cached: o.cached,
        shared: o.shared,
        warmStarted: o.warmStarted,
        progressUpdates: updates,
      });
      const pending = percentiles && o.result.latency === undefined && o.result.latencyUnavailable === undefined;
      if (pending) yield { done: false, solved: o.result, cached: o.cached, warmStarted: o.warmStarted };
      const result = await deps.coordinator.withPercentiles(scenario, o.result, o.warmStart.policy, { ...onPool(ctx), percentiles }, o.key);
      yield { done: true, result, cached: o.cached, warmStarted: o.warmStarted };
    }
  };
}

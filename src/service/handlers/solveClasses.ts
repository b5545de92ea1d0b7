import { progressInterval } from '../config.js';
import { classesProgressToProto, classesResultToProto, type ClassesProgress } from '../convert/classes.js';
import { parseClassesScenario } from '../convert/parse.js';
import type { SolveRequest, SolveUpdate } from '../messages.js';
import type { CallContext } from '../rpc/context.js';
import { inField, requalify } from '../rpc/errorTable.js';
import { throttled } from '../solving/throttle.js';
import type { ClassesSolveResult } from '../../solve/classes/result.js';
import { onPool, type ServiceDeps } from './deps.js';

/**
 * Solve of a scenario with classes: validated (errors name `scenario.classes[i]…`), solved on
 * the pool with the joint state bound (or answered from the classes cache; a new solve starts from
 * the last solved scenario of its shape), progress at most once
 * per interval (bounds and the box), then one update with done = true and `classesResult`.
 */
export async function* solveClassesCall(request: SolveRequest, raw: Record<string, unknown>, deps: ServiceDeps, ctx: CallContext): AsyncGenerator<SolveUpdate, void, undefined> {
  const scenario = inField('scenario.', () => parseClassesScenario(raw, deps.limits));
  ctx.facts.classes = scenario.params.classes.length;
  const interval = progressInterval(request.progressIntervalMs, deps.progressIntervalMs);
  const stream = throttled<ClassesProgress, { readonly result: ClassesSolveResult; readonly cached: boolean; readonly warmStarted: boolean }>(
    (emit) => deps.coordinator.solveClasses(scenario, { ...onPool(ctx), onProgress: emit, progressIntervalMs: interval }),
    interval,
  );
  let updates = 0;
  try {
    for await (const item of stream) {
      if ('progress' in item) {
        updates++;
        yield { done: false, progress: classesProgressToProto(item.progress), cached: false, warmStarted: false };
        continue;
      }
      const { result: r, cached, warmStarted } = item.result;
      Object.assign(ctx.facts, { states: r.solver.states, iterations: r.solver.totalIterations, backend: r.solver.backend, cached, progressUpdates: updates });
      yield { done: true, classesResult: classesResultToProto(r), cached, warmStarted };
    }
  } catch (e) {
    // A box past maxStates is about the scenario too.
    throw requalify('scenario.', e);
  }
}

import { canonicalKey } from '../cache/canonical.js';
import { expandBatch } from '../batch/expand.js';
import { routeTasks, type BatchTask } from '../batch/executor.js';
import type { ScenarioResult, SolveBatchRequest } from '../messages.js';
import type { ServerStreamingHandler } from '../rpc/context.js';
import { inField, toStatus } from '../rpc/errorTable.js';
import { codeName } from '../rpc/status.js';
import { mergeAsync } from '../util/asyncQueue.js';
import { parseScenario, type ServiceDeps } from './deps.js';
import type { BatchEntry } from '../batch/expand.js';

/**
 * SolveBatch: expands a list or grid, answers invalid scenarios with an error entry and
 * cached ones at once, and streams the rest as the executors finish them. Every index
 * gets exactly one ScenarioResult; only a bad request as a whole fails the stream.
 */
export function createSolveBatchHandler(deps: ServiceDeps): ServerStreamingHandler<SolveBatchRequest, ScenarioResult> {
  return async function* solveBatch(request, ctx) {
    const entries = inField('', () => expandBatch(request, deps.limits.maxScenariosPerBatch));
    ctx.facts.scenarios = entries.length;
    const byIndex = new Map<number, BatchEntry>(entries.map((e) => [e.index, e]));
    const taskOf = new Map<number, BatchTask>();
    const tasks: BatchTask[] = [];
    let invalid = 0;
    let cached = 0;
    for (const entry of entries) {
      let task: BatchTask;
      try {
        const scenario = parseScenario(entry.scenario, deps.limits);
        task = { index: entry.index, scenario, key: canonicalKey(scenario), input: entry.scenario };
      } catch (e) {
        invalid++;
        yield errorEntry(entry, e);
        continue;
      }
      const hit = deps.cache.get(task.key);
      if (hit) {
        cached++;
        yield { index: entry.index, parameters: entry.parameters, result: hit.result, cached: true, warmStarted: false };
      } else {
        tasks.push(task);
        taskOf.set(task.index, task);
      }
    }
    const groups = routeTasks(tasks, deps.batchExecutors(), deps.cpuBatchExecutor);
    const context = {
      signal: ctx.signal,
      warmStarts: request.disableWarmStart !== true,
      nearest: (s: BatchTask['scenario']) => deps.cache.nearest(s),
    };
    let failed = 0;
    let iterations = 0;
    for await (const o of mergeAsync(groups.map((g) => g.executor.run(g.tasks, context)))) {
      const entry = byIndex.get(o.index);
      const task = taskOf.get(o.index);
      if (!entry || !task) continue;
      taskOf.delete(o.index); // one result per index, whatever an executor sends
      if (!o.ok) {
        failed++;
        if (toStatus(o.error).internal) ctx.log.error({ err: o.error, index: o.index }, 'batch scenario failed');
        yield errorEntry(entry, o.error);
        continue;
      }
      iterations += o.result.solver.totalIterations;
      // Executors other than the CPU pool do not go through the coordinator: cache their results here.
      if (o.warmStart && !o.cached) deps.cache.store(task.scenario, o.result, o.warmStart, task.key);
      yield { index: entry.index, parameters: entry.parameters, result: o.result, cached: o.cached, warmStarted: o.warmStarted };
    }
    Object.assign(ctx.facts, { invalid, cached, failed, solved: tasks.length - failed, iterations, warmStarts: context.warmStarts });
  };
}

function errorEntry(entry: BatchEntry, e: unknown): ScenarioResult {
  const s = toStatus(e);
  return {
    index: entry.index,
    parameters: entry.parameters,
    error: { code: codeName(s.code), field: s.field ?? '', message: s.details },
    cached: false,
    warmStarted: false,
  };
}

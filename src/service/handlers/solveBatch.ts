import { openBatch } from '../batch/expand.js';
import { routeTasks, type BatchContext, type BatchOutcome, type BatchTask, type ClassesBatchOutcome, type ClassesBatchTask } from '../batch/executor.js';
import { prepareOnPool } from '../batch/prepareOnPool.js';
import { classesResultToProto } from '../convert/classes.js';
import { fromWire } from '../pool/wire.js';
import type { ScenarioResultMessage, SolveBatchRequest } from '../messages.js';
import type { ServerStreamingHandler } from '../rpc/context.js';
import { inField, toStatus } from '../rpc/errorTable.js';
import { Code, ServiceError, codeName } from '../rpc/status.js';
import { mergeAsync } from '../util/asyncQueue.js';
import { checkWork } from '../solving/work.js';
import { onPool, type ServiceDeps } from './deps.js';
import type { SolveResult } from '../../solve/result.js';
import type { BatchEntry } from '../batch/expand.js';

/** What the call's log line reports, counted as results are handed to the transport (not as they are produced). */
interface BatchCounts {
  sent: number;
  invalid: number;
  cached: number;
  failed: number;
  solved: number;
  iterations: number;
}

/**
 * SolveBatch: expands a list or grid a slice at a time and validates it on the pool (never on
 * the thread that answers health checks and cancels), answers invalid scenarios with an error
 * entry and cached ones at once, and streams the rest as the executors finish them. Every index
 * gets exactly one ScenarioResult; only a bad request as a whole fails the stream. Scenarios
 * with classes (docs/model.md §10) are solved beside the others on the CPU pool's lanes (backend
 * GPU: in the WebGPU batch, sharing its GPU rounds) and answer with classesResult (from the classes cache when solved before; not warm-started or counted in the work bound yet). A batch
 * that stops early (cancel, deadline, shutdown, a lost Redis) ends with that status, never
 * OK with results missing, and its log line counts only the results actually sent.
 */
export function createSolveBatchHandler(deps: ServiceDeps): ServerStreamingHandler<SolveBatchRequest, ScenarioResultMessage> {
  return async function* solveBatch(request, ctx) {
    const source = inField('', () => openBatch(request, deps.limits.maxScenariosPerBatch));
    const total = source.count;
    const n: BatchCounts = { sent: 0, invalid: 0, cached: 0, failed: 0, solved: 0, iterations: 0 };
    ctx.facts.scenarios = total;
    ctx.facts.warmStarts = request.disableWarmStart !== true;
    // Code after a `yield` runs only once the adapter has written that result and asks for the next.
    const record = (kind: 'invalid' | 'cached' | 'failed' | 'solved', iterations = 0): void => {
      n.sent++;
      n[kind]++;
      n.iterations += iterations;
    };
    try {
      const refused = deps.pool.peerRefusal(ctx.peer);
      if (refused) throw refused;
      const byIndex = new Map<number, BatchEntry>();
      const taskOf = new Map<number, BatchTask>();
      const tasks: BatchTask[] = [];
      const classesTasks: ClassesBatchTask[] = [];
      const classesPending = new Set<number>();
      // Answers known before any solve (refusals, cache hits) wait until the work bound is checked.
      const early: Array<{ message: ScenarioResultMessage; kind: 'invalid' | 'cached'; task?: BatchTask }> = [];
      let work = 0;
      for await (const { entry, prepared } of prepareOnPool(source, { pool: deps.pool, limits: deps.limits, signal: ctx.signal, flow: ctx.callId, peer: ctx.peer })) {
        if (!prepared.ok) {
          early.push({ message: errorEntry(entry, fromWire(prepared.error)), kind: 'invalid' });
          continue;
        }
        byIndex.set(entry.index, entry);
        if (prepared.classes) {
          classesTasks.push({ index: entry.index, scenario: prepared.classes, ...(prepared.firstBoxWork !== undefined ? { firstBoxWork: prepared.firstBoxWork } : {}) });
          classesPending.add(entry.index);
          continue;
        }
        const task: BatchTask = { index: entry.index, scenario: prepared.scenario, key: prepared.key, input: entry.scenario };
        const hit = deps.cache.get(task.key);
        if (hit) {
          early.push({ message: { index: entry.index, parameters: entry.parameters, result: hit.result, cached: true, warmStarted: false }, kind: 'cached', task });
        } else {
          tasks.push(task);
          taskOf.set(task.index, task);
          work += prepared.work;
        }
      }
      ctx.facts.estimatedWork = work;
      ctx.facts.classesScenarios = classesTasks.length;
      checkWork(work, deps.limits.maxWorkPerCall, request.grid ? 'grid' : 'list.scenarios', `its ${tasks.length} scenarios to solve need`);
      const percentiles = request.skipPercentiles !== true;
      // Results as the call asked for them: percentiles filled in (on the pool) or left out, whoever solved them.
      const asAsked = (task: BatchTask, result: SolveResult, policy?: Int32Array): Promise<SolveResult> =>
        deps.coordinator.withPercentiles(task.scenario, result, policy, { percentiles, ...onPool(ctx) }, task.key);
      for (const { message, kind, task } of early) {
        const hit = task && deps.cache.get(task.key);
        yield task && message.result ? { ...message, result: await asAsked(task, message.result, hit?.warmStart.policy) } : message;
        record(kind);
      }
      const groups = await routeTasks(tasks, deps.batchExecutors(), deps.cpuBatchExecutor, classesTasks);
      const context: BatchContext = {
        signal: ctx.signal,
        warmStarts: request.disableWarmStart !== true,
        percentiles,
        nearest: (s: BatchTask['scenario']) => deps.cache.nearest(s),
        flow: ctx.callId,
        peer: ctx.peer,
        solveClasses: (scenario, run) => deps.coordinator.solveClasses(scenario, { ...run, bounded: false, flow: ctx.callId, peer: ctx.peer }),
      };
      const runs: Array<AsyncIterable<BatchOutcome | ClassesBatchOutcome>> = groups.map((g) => g.executor.run(g.tasks, context, g.classes));
      for await (const o of mergeAsync(runs)) {
        const entry = byIndex.get(o.index);
        const task = 'classes' in o ? undefined : taskOf.get(o.index);
        // One result per index, whatever an executor sends.
        if (!entry || !('classes' in o ? classesPending.delete(o.index) : taskOf.delete(o.index))) continue;
        if (!o.ok) {
          if (toStatus(o.error).internal) ctx.log.error({ err: o.error, index: o.index }, 'batch scenario failed');
          yield errorEntry(entry, o.error);
          record('failed');
          continue;
        }
        if ('classes' in o) {
          yield { index: entry.index, parameters: entry.parameters, classesResult: classesResultToProto(o.result), cached: o.cached, warmStarted: o.warmStarted };
          if (o.cached) record('cached');
          else record('solved', o.result.solver.totalIterations);
          continue;
        }
        if (!task) continue; // taskOf held it (the delete above): this only narrows the type
        // Executors other than the CPU pool do not go through the coordinator: cache their results here,
        // once (identical scenarios share one solve's result, whose percentiles the first one fills in).
        if (o.warmStart && !o.cached && deps.cache.get(task.key)?.result.solver !== o.result.solver) deps.cache.store(task.scenario, o.result, o.warmStart, task.key);
        yield { index: entry.index, parameters: entry.parameters, result: await asAsked(task, o.result, o.warmStart?.policy), cached: o.cached, warmStarted: o.warmStarted };
        record(o.cached ? 'cached' : 'solved', o.result.solver.totalIterations);
      }
      if (n.sent < total) {
        // The executors stopped early. With the call's signal fired that is its status; without, a bug.
        if (ctx.signal.aborted) throw ctx.signal.reason;
        const names = groups.map((g) => `${g.executor.name}${g.classes.length > 0 ? ' (with classes)' : ''}`).join(', ');
        throw new ServiceError(Code.INTERNAL, `${total - n.sent} of ${total} scenarios got no result (executors: ${names})`);
      }
    } finally {
      Object.assign(ctx.facts, { ...n, unanswered: total - n.sent });
    }
  };
}

function errorEntry(entry: BatchEntry, e: unknown): ScenarioResultMessage {
  const s = toStatus(e);
  return {
    index: entry.index,
    parameters: entry.parameters,
    error: { code: codeName(s.code), field: s.field ?? '', message: s.details },
    cached: false,
    warmStarted: false,
  };
}

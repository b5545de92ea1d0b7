import type { ValidatedScenario } from '../../model/scenario.js';
import type { SolutionCache } from '../cache/solutionCache.js';
import type { ServiceLimits } from '../config.js';
import { carriesTrace, parseScenario } from '../convert/parse.js';
import { fromWire } from '../pool/wire.js';
import type { CpuBatchExecutor } from '../batch/cpuExecutor.js';
import type { BatchExecutor } from '../batch/executor.js';
import type { WorkerPool } from '../pool/workerPool.js';
import type { CallContext } from '../rpc/context.js';
import { requalify } from '../rpc/errorTable.js';
import { checkWork, estimateWork } from '../solving/work.js';
import type { SolveCoordinator } from '../solving/coordinator.js';

/** What handlers may use. A new RPC takes what it needs from here (add fields as needed). */
export interface ServiceDeps {
  readonly limits: ServiceLimits;
  readonly pool: WorkerPool;
  readonly cache: SolutionCache;
  readonly coordinator: SolveCoordinator;
  /** The CPU pool executor; registered executors are asked first (see batch/executor.ts). It alone solves a batch's multi-class scenarios. */
  readonly cpuBatchExecutor: CpuBatchExecutor;
  /** Executors besides the CPU pool, asked in order (default: the registered ones). */
  readonly batchExecutors: () => readonly BatchExecutor[];
  /** Default least time between progress updates of a streamed solve. */
  readonly progressIntervalMs: number;
}

export { parseScenario } from '../convert/parse.js';

/** A call's pool options: its signal, and its flow and peer for the fair queue and the per-peer bound. */
export function onPool(ctx: CallContext): { signal: AbortSignal; flow: string; peer: string } {
  return { signal: ctx.signal, flow: ctx.callId, peer: ctx.peer };
}

/**
 * parseScenario for one call's scenario, off the main thread when it is heavy (a trace to fit):
 * then as a `prepare` job on the pool, queued like the call's other work. Field paths relative
 * to the scenario, as parseScenario's.
 */
export async function parseScenarioOffThread(raw: unknown, deps: ServiceDeps, ctx: CallContext): Promise<ValidatedScenario> {
  if (!carriesTrace(raw)) return parseScenario(raw, deps.limits);
  const [p] = await deps.pool.submit('prepare', { scenarios: [raw], limits: deps.limits }, { ...onPool(ctx), bounded: true });
  if (!p.ok) throw fromWire(p.error);
  // The prepare job takes classes too (for SolveBatch); the single-class calls refuse them, by parseScenario's words.
  return p.classes ? parseScenario(raw, deps.limits) : p.scenario;
}

/**
 * A scenario parser for the request parsers that take one (Simulate, the planning RPCs): a
 * scenario that carries a trace is fitted first, off the main thread (parseScenarioOffThread),
 * and the parser hands that result back for it; anything else is parsed in place (cheap).
 * Errors of the fit carry paths under `scenario.`, as the request parsers' own.
 */
export async function scenarioParser(raw: unknown, deps: ServiceDeps, ctx: CallContext): Promise<(r: unknown) => ValidatedScenario> {
  const inPlace = (r: unknown): ValidatedScenario => parseScenario(r, deps.limits);
  if (!carriesTrace(raw)) return inPlace;
  const fitted = await parseScenarioOffThread(raw, deps, ctx).catch((e: unknown) => {
    throw requalify('scenario.', e);
  });
  return (r) => (r === raw ? fitted : inPlace(r));
}

/**
 * maxWorkPerCall for a call that builds the scenario's model (Evaluate, Simulate with the optimal
 * policy, the planning RPCs): checked on one model's estimated chain entries before any work
 * starts. The planning RPCs build several such models one after another; the bound is on each.
 */
export function checkModelWork(scenario: ValidatedScenario, deps: ServiceDeps, ctx: CallContext, what: string): void {
  const work = estimateWork(scenario);
  ctx.facts.estimatedWork = work.entries;
  checkWork(work.entries, deps.limits.maxWorkPerCall, 'scenario', what);
}

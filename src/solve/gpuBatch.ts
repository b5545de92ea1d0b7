import { AbortError } from '../model/errors.js';
import type { ValidatedScenario } from '../model/scenario.js';
import { validateScenario } from '../model/validate.js';
import { BackendUnavailableError, cpuSolver } from './backends.js';
import { gpuPaysOff, modelSize, sweepWork } from './gpu/autoRule.js';
import { BatchCollector, type BatchRunner } from './gpu/collector.js';
import { acquireGpu, type GpuContext } from './gpu/device.js';
import { readFlags, type GpuFlags } from './gpu/flags.js';
import { gpuLogger } from './gpu/log.js';
import { largestBinding } from './gpu/pack.js';
import { batchedRvi, bindingLimit, type GpuRunHooks } from './gpu/rvi.js';
import { gpuSolver } from './gpu/solver.js';
import type { SolveResult } from './result.js';
import { solveScenarioDetailed, type WarmStart } from './solveScenario.js';
import type { Solver } from './types.js';

export interface GpuBatchOptions {
  /** GPU: every scenario's f32 stage on the GPU; AUTO: only batches the AUTO rule sends there. Default GPU. */
  readonly backend?: 'GPU' | 'AUTO';
  readonly signal?: AbortSignal;
  /** Scenarios in flight at once (default 256); the others start as these finish. */
  readonly concurrency?: number;
  /** A warm start for a scenario (e.g. the nearest cached solution). */
  readonly warmStart?: (index: number, scenario: ValidatedScenario) => WarmStart | undefined;
  readonly flags?: GpuFlags;
  readonly hooks?: GpuRunHooks;
  /** The f64 polish (default: CPU policy iteration). */
  readonly polish?: Solver;
}

export type GpuBatchItem =
  | {
      readonly index: number;
      readonly result: SolveResult;
      /** Final values and policy, to cache or to warm-start neighbours. */
      readonly warmStart: { readonly values: Float64Array; readonly policy: Int32Array; readonly phases: number };
    }
  | { readonly index: number; readonly error: Error };

/**
 * Solves many scenarios with one GPU batch per round: every scenario's model (its own S, B
 * and number of arrival phases M, Poisson and MMPP alike) is packed into shared buffers and
 * iterated in the same dispatches; a scenario whose S must grow re-enters the next round.
 * Each result is certified in f64 on the CPU exactly as a single GPU solve is, so a batch
 * gives the same answers as solving one by one. Yields one item per input, in completion
 * order; invalid scenarios yield an error item and the batch goes on. Scenarios that ask for
 * backend CPU are solved on the CPU. Throws BackendUnavailableError up front when backend GPU
 * is asked for and there is no adapter.
 */
export async function* solveScenariosOnGpu(scenarios: readonly unknown[], opts: GpuBatchOptions = {}): AsyncGenerator<GpuBatchItem, void, undefined> {
  const flags = opts.flags ?? readFlags();
  const backend = opts.backend ?? 'GPU';
  const ctx = await openForBatch(backend, flags);
  const polish = opts.polish ?? cpuSolver('POLICY_ITERATION');
  const inner = new AbortController();
  const onAbort = (): void => inner.abort(opts.signal?.reason);
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  if (opts.signal?.aborted) onAbort();
  const signal = inner.signal;
  const collector = new BatchCollector(batchRunner(ctx, backend, flags, signal, opts.hooks));
  const solver = gpuSolver(collector.stage, polish);
  const done: GpuBatchItem[] = [];
  let wake: (() => void) | undefined;
  const push = (item: GpuBatchItem): void => {
    done.push(item);
    wake?.();
  };
  const limit = Math.max(1, opts.concurrency ?? 256);
  let next = 0;
  let inFlight = 0;
  const startMore = (): void => {
    while (inFlight < limit && next < scenarios.length) {
      const index = next++;
      inFlight++;
      // solveOne joins the collector synchronously; the finished one leaves only after the next
      // has joined, so that a round does not start without it.
      void solveOne(index).then(({ item, joined }) => {
        inFlight--;
        startMore();
        if (joined) collector.leave();
        push(item);
      });
    }
  };
  const solveOne = async (index: number): Promise<{ item: GpuBatchItem; joined: boolean }> => {
    let scenario: ValidatedScenario;
    try {
      scenario = validateScenario(scenarios[index]);
    } catch (e) {
      return { item: { index, error: asError(e) }, joined: false };
    }
    const joined = scenario.solver.backend !== 'CPU';
    if (joined) collector.join();
    try {
      const out = await solveScenarioDetailed(scenario, { signal, solver: joined ? solver : undefined, warmStart: opts.warmStart?.(index, scenario), percentiles: false });
      return { item: { index, result: out.result, warmStart: out.warmStart }, joined };
    } catch (e) {
      return { item: { index, error: asError(e) }, joined };
    }
  };
  try {
    startMore();
    for (let yielded = 0; yielded < scenarios.length; yielded++) {
      while (done.length === 0) await new Promise<void>((r) => (wake = r));
      wake = undefined;
      yield done.shift()!;
    }
  } finally {
    // A consumer that stops early (or an abort) stops the rest.
    if (!signal.aborted) inner.abort(new AbortError('batch consumer stopped'));
    opts.signal?.removeEventListener('abort', onAbort);
  }
}

async function openForBatch(backend: 'GPU' | 'AUTO', flags: GpuFlags): Promise<GpuContext | undefined> {
  let ctx: GpuContext | undefined;
  try {
    ctx = await acquireGpu(flags);
  } catch (e) {
    if (backend === 'GPU') throw new BackendUnavailableError(`GPU backend is not available on this server (${(e as Error).message})`);
  }
  if (!ctx && backend === 'GPU') throw new BackendUnavailableError('GPU backend is not available on this server (no WebGPU adapter)');
  return ctx;
}

/** One collector round: the f32 stage of all waiting scenarios in one batchedRvi call. */
function batchRunner(ctx: GpuContext | undefined, backend: 'GPU' | 'AUTO', flags: GpuFlags, signal: AbortSignal, hooks?: GpuRunHooks): BatchRunner {
  return async (jobs) => {
    // The device may have been lost since the batch began: acquire again (a new one if so).
    const gpu = ctx && !ctx.isLost() ? ctx : await acquireGpu(flags).catch(() => undefined);
    if (!gpu) return undefined;
    ctx = gpu;
    if (backend === 'AUTO') {
      if (!gpuPaysOff(sweepWork(jobs.map((j) => modelSize(j.model))), gpu.kind, flags)) return undefined;
    }
    // A model too big for the device's bindings (a large MMPP one, say) finishes on the CPU
    // alone rather than taking its round-mates with it.
    const fits = jobs.map((j) => largestBinding(j.model) <= bindingLimit(gpu));
    if (fits.includes(false)) gpuLogger().warn({ scenarios: fits.filter((f) => !f).length, limit: bindingLimit(gpu) }, 'models over the GPU binding limit; finishing them on the CPU');
    try {
      const results = await batchedRvi(gpu, jobs.filter((_, i) => fits[i]), { flags, signal, hooks });
      let k = 0;
      return fits.map((fit) => (fit ? { result: results[k++], adapter: gpu.adapterName } : undefined));
    } catch (e) {
      if (e instanceof AbortError) throw e;
      // Logged once for the whole round; every scenario of it finishes on the CPU.
      gpuLogger().warn({ err: e, scenarios: jobs.length }, 'GPU batch failed; finishing its scenarios on the CPU');
      return undefined;
    }
  };
}

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

import { LimitError, ScenarioError, throwIfAborted } from '../model/errors.js';
import { LIMITS } from '../model/limits.js';
import { compileMmppModel, type CompiledMmppModel } from '../model/mmpp/compile.js';
import { likeliestPhase, type MmppProcess } from '../model/mmpp/process.js';
import { buildMmppPmfTable, type MmppPmfTable } from '../model/mmpp/table.js';
import type { ModelParams, ValidatedScenario } from '../model/scenario.js';
import { upperQuantile } from '../policy/evaluate.js';
import { evaluateMmppPolicy } from '../policy/mmpp/evaluate.js';
import { phasePolicy, summarizeMmppPolicy, type MmppPolicy } from '../policy/mmpp/policy.js';
import { summarizePolicy } from '../policy/policy.js';
import { withRoomToWait } from './maxQueue.js';
import { resolveMmppSolver } from './mmppBackends.js';
import type { ArrivalProcessSummary, SolveResult } from './result.js';
import type { ScenarioSolution, ScenarioSolveOptions, WarmStart } from './solveScenario.js';
import type { SolverOutput, SolverProgress } from './types.js';

/** Spec §4 per phase: the levels within B of the top must carry less than this in all phases. */
const TAIL_MASS_BOUND = 1e-9;
/** Initial S: the greedy policy's queue exceeds it with probability below this. */
const INITIAL_QUANTILE_MASS = 1e-10;

/**
 * The MMPP branch of solveScenario (spec §7): the same steps on the (s, j) model — choose S
 * (automatically unless given), solve with the certified CPU policy iteration, evaluate the
 * policy exactly under the MMPP, check the tail over all phases and grow S warm-started until
 * it holds, then assemble the result with one control limit and action table per phase.
 *
 * Progress reports carry the policy of the likeliest phase (length S+1), so consumers of
 * SolverProgress read it like a Poisson policy.
 */
export async function solveMmppScenario(
  scenario: ValidatedScenario,
  proc: MmppProcess,
  opts: ScenarioSolveOptions,
  started: number,
): Promise<ScenarioSolution> {
  const { params: p, solver: settings } = scenario;
  const B = p.maxBatchSize;
  const M = proc.phases;
  const table = buildMmppPmfTable(p, proc, opts.signal);
  const fixedS = settings.maxQueue > 0;
  if (fixedS && settings.maxQueue < 2) {
    throw new ScenarioError('solver.maxQueue', `must be ≥ 2, or 0 for automatic (got ${settings.maxQueue})`);
  }
  let S = fixedS ? settings.maxQueue : Math.max(opts.initialMaxQueue ?? initialLevels(p, proc, table, opts.signal), 2);
  const tried: number[] = [];
  let totalIterations = 0;
  let warm = compatibleWarmStart(opts.warmStart, M);
  const main = likeliestPhase(proc);
  const onProgress = opts.onProgress
    ? (q: SolverProgress) => opts.onProgress!({ ...q, policy: project(q.policy, M, main) })
    : undefined;
  for (;;) {
    throwIfAborted(opts.signal);
    const model = compileGuarded(p, proc, S, table, fixedS);
    const solver = await resolveMmppSolver(opts.backend ?? settings.backend, opts.method ?? settings.method, model);
    const out = await solver.solve(model, {
      tolerance: settings.tolerance,
      maxIterations: settings.maxIterations,
      warmStart: warm ? fitWarmStart(warm, model) : undefined,
      signal: opts.signal,
      onProgress,
      progressEvery: opts.progressEvery,
    });
    tried.push(S);
    totalIterations += out.iterations;
    const policy: MmppPolicy = { phases: M, actions: out.policy, tailBatch: B };
    const ev = evaluateMmppPolicy(p, proc, policy, { table, signal: opts.signal, minLevels: S + 1 });
    let tailMass = 0;
    for (let x = Math.max(0, S - B + 1) * M; x < ev.stationary.length; x++) tailMass += ev.stationary[x];
    if (fixedS || tailMass < TAIL_MASS_BOUND) {
      const { stationary: _nu, levels: _n, phases: phaseFigures, ...figures } = ev;
      const result: SolveResult = {
        ...figures,
        averageCostLower: out.lower,
        averageCostUpper: out.upper,
        policy: { ...summarizePolicy(phasePolicy(policy, main), B), phases: summarizeMmppPolicy(policy, proc, B) },
        solver: facts(out, S, M, tried, totalIterations, started, tailMass),
        arrivalProcess: arrivalSummary(proc),
        phaseFigures,
      };
      return { result, warmStart: { values: out.values, policy: out.policy, phases: M } };
    }
    warm = { values: out.values, policy: out.policy, phases: M };
    S = Math.ceil(S * 1.5) + B;
  }
}

export function arrivalSummary(proc: MmppProcess): ArrivalProcessSummary {
  return {
    source: proc.source,
    phases: proc.phases,
    meanRate: proc.meanRate,
    rates: Array.from(proc.rates),
    generator: Array.from(proc.generator),
    stationary: Array.from(proc.stationary),
    ...(proc.fit ? { fit: proc.fit } : {}),
  };
}

function project(flat: Int32Array, M: number, j: number): Int32Array {
  const n = Math.floor(flat.length / M);
  const out = new Int32Array(n);
  for (let s = 0; s < n; s++) out[s] = flat[s * M + j];
  return out;
}

function compileGuarded(p: ModelParams, proc: MmppProcess, S: number, table: MmppPmfTable, fixedS: boolean): CompiledMmppModel {
  try {
    return compileMmppModel(p, proc, S, table);
  } catch (e) {
    if (e instanceof LimitError && !fixedS) {
      throw new LimitError(
        'arrivalProcess',
        `the queue needs more than S = ${S} levels of ${proc.phases} phases to be solved within the bounds (${LIMITS.maxQueue} levels, ${LIMITS.maxBandEntries} band entries): the load or the bursts are too heavy`,
      );
    }
    throw e;
  }
}

/** First S: where the greedy policy's queue (all phases) has almost no mass left, plus room to wait. */
function initialLevels(p: ModelParams, proc: MmppProcess, table: MmppPmfTable, signal?: AbortSignal): number {
  const B = p.maxBatchSize;
  const M = proc.phases;
  const greedy: MmppPolicy = { phases: M, actions: new Int32Array(M), tailBatch: B };
  const ev = evaluateMmppPolicy(p, proc, greedy, { table, signal });
  const level = (s: number): number => {
    let m = 0;
    for (let j = 0; j < M; j++) m += ev.stationary[s * M + j];
    return m;
  };
  return Math.max(withRoomToWait(upperQuantile(ev.levels, level, INITIAL_QUANTILE_MASS), B), 32);
}

/** A warm start from a solve with another number of phases (e.g. a Poisson neighbour) is ignored. */
function compatibleWarmStart(w: WarmStart | undefined, M: number): WarmStart | undefined {
  if (!w) return undefined;
  if ((w.phases ?? 1) !== M) return undefined;
  return w;
}

/** Adapts values/policy solved at another S: cut, or extend per phase quadratically / by serving min(s, B). */
function fitWarmStart(w: WarmStart, model: CompiledMmppModel): { values?: Float64Array; policy?: Int32Array } {
  const { S, M, B } = model;
  const n = (S + 1) * M;
  const out: { values?: Float64Array; policy?: Int32Array } = {};
  if (w.values && w.values.length >= 3 * M && w.values.length % M === 0) {
    const v = new Float64Array(n);
    const m = Math.min(n, w.values.length);
    v.set(w.values.subarray(0, m));
    const top = w.values.length / M - 1;
    for (let x = m; x < n; x++) {
      const s = Math.floor(x / M);
      const j = x % M;
      const h = (t: number): number => w.values![t * M + j];
      const d1 = h(top) - h(top - 1);
      const d2 = h(top) - 2 * h(top - 1) + h(top - 2);
      const k = s - top;
      v[x] = h(top) + k * d1 + ((k * (k + 1)) / 2) * d2;
    }
    out.values = v;
  }
  if (w.policy && w.policy.length % M === 0) {
    const a = new Int32Array(n);
    const m = Math.min(n, w.policy.length);
    a.set(w.policy.subarray(0, m));
    for (let x = m; x < n; x++) a[x] = Math.min(Math.floor(x / M), B);
    for (let j = 0; j < M; j++) a[S * M + j] = Math.max(a[S * M + j], Math.min(S, B));
    out.policy = a;
  }
  return out;
}

function facts(out: SolverOutput, S: number, M: number, tried: number[], totalIterations: number, started: number, tailMass: number) {
  return {
    backend: out.backend,
    adapter: out.adapter,
    method: out.method,
    maxQueue: S,
    states: (S + 1) * M,
    iterations: out.iterations,
    totalIterations,
    seconds: (performance.now() - started) / 1000,
    tailMass,
    stopReason: out.stopReason,
    maxQueueTried: tried,
    ...(out.gpuIterations !== undefined ? { gpuIterations: out.gpuIterations } : {}),
    ...(out.polishSteps !== undefined ? { polishSteps: out.polishSteps } : {}),
  };
}

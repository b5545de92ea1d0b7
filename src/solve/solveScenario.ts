import { buildPmfTable, compileModel, MIN_MAX_QUEUE, type CompiledModel, type PmfTable } from '../model/compile.js';
import { LimitError, ScenarioError, throwIfAborted } from '../model/errors.js';
import { LIMITS } from '../model/limits.js';
import type { Backend, Method, ModelParams, ValidatedScenario } from '../model/scenario.js';
import { validateScenario } from '../model/validate.js';
import { evaluatePolicy, tailQuantile, upperQuantile } from '../policy/evaluate.js';
import { greedyPolicy, summarizePolicy } from '../policy/policy.js';
import { resolveSolver } from './backends.js';
import { withRoomToWait } from './maxQueue.js';
import type { SolveResult } from './result.js';
import type { Solver, SolverOutput, SolverProgress } from './types.js';
import { solveMmppScenario } from './mmppScenario.js';

/** Spec §4: the states within B of the top must carry less than this under the solved policy. */
export const TAIL_MASS_BOUND = 1e-9;
/** Initial S: the greedy policy's queue exceeds it with probability below this. */
const INITIAL_QUANTILE_MASS = 1e-10;

export interface ScenarioSolveOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: SolverProgress) => void;
  readonly progressEvery?: number;
  /** Overrides the scenario's backend / method. */
  readonly backend?: Backend;
  readonly method?: Method;
  /** First S of the automatic search (tests use it to start from a degenerate S). */
  readonly initialMaxQueue?: number;
  /** Values/policy from a similar solved scenario (same B): a warm start. */
  readonly warmStart?: WarmStart;
  /** Solver to use instead of resolveSolver's pick (batched GPU solves pass their collector's). */
  readonly solver?: Solver;
}

/** What a later solve of a similar scenario can start from. */
export interface WarmStart {
  readonly values?: Float64Array;
  readonly policy?: Int32Array;
  /** Arrival phases of the solve it came from (MMPP, spec §7; absent = 1, Poisson). Others are ignored. */
  readonly phases?: number;
}

export interface ScenarioSolution {
  readonly result: SolveResult;
  /** Final relative values (h̃, length S+1) and policy, for warm-starting neighbours. */
  readonly warmStart: { readonly values: Float64Array; readonly policy: Int32Array; readonly phases?: number };
}

/**
 * Solves a scenario end to end: validate, choose S (automatically unless given), solve,
 * evaluate the policy exactly, check the tail (spec §4) and grow S warm-started until it
 * holds, then assemble the result object of spec §5.
 */
export async function solveScenario(input: unknown, opts: ScenarioSolveOptions = {}): Promise<SolveResult> {
  return (await solveScenarioDetailed(input, opts)).result;
}

export async function solveScenarioDetailed(input: unknown, opts: ScenarioSolveOptions = {}): Promise<ScenarioSolution> {
  const started = performance.now();
  const scenario = isValidated(input) ? input : validateScenario(input);
  const { params: p, solver: settings } = scenario;
  // Markov-modulated arrivals (spec §7) solve the (queue, phase) model instead.
  if (p.arrivalProcess) return solveMmppScenario(scenario, p.arrivalProcess, opts, started);
  const B = p.maxBatchSize;
  const pmfs = buildPmfTable(p);
  const fixedS = settings.maxQueue > 0;
  if (fixedS && settings.maxQueue < MIN_MAX_QUEUE) {
    throw new ScenarioError('solver.maxQueue', `must be ≥ ${MIN_MAX_QUEUE}, or 0 for automatic (got ${settings.maxQueue})`);
  }
  let S = fixedS ? settings.maxQueue : Math.max(opts.initialMaxQueue ?? initialMaxQueue(p, pmfs, opts.signal), MIN_MAX_QUEUE);
  const tried: number[] = [];
  let totalIterations = 0;
  let warm = (opts.warmStart?.phases ?? 1) === 1 ? opts.warmStart : undefined;
  for (;;) {
    throwIfAborted(opts.signal);
    const model = compileGuarded(p, S, pmfs, fixedS);
    const solver =
      opts.solver ??
      (await resolveSolver(opts.backend ?? settings.backend, opts.method ?? settings.method, {
        states: S + 1,
        batch: B,
        pmfWidth: model.upReach + B,
      }));
    const out = await solver.solve(model, {
      tolerance: settings.tolerance,
      maxIterations: settings.maxIterations,
      warmStart: warm ? fitWarmStart(warm, model) : undefined,
      signal: opts.signal,
      onProgress: opts.onProgress,
      progressEvery: opts.progressEvery,
    });
    tried.push(S);
    totalIterations += out.iterations;
    const policy = { actions: out.policy, tailBatch: B };
    let evaluation;
    try {
      evaluation = evaluatePolicy(p, policy, { pmfs, signal: opts.signal, minStates: S + 1 });
    } catch (e) {
      if (e instanceof LimitError) throw tooClose(e.reason);
      throw e;
    }
    let tailMass = 0;
    for (let s = Math.max(0, S - B + 1); s < evaluation.stationary.length; s++) tailMass += evaluation.stationary[s];
    const grow = !fixedS && tailMass >= TAIL_MASS_BOUND;
    if (!grow) {
      const { stationary: _nu, states: _n, ...figures } = evaluation;
      const result: SolveResult = {
        ...figures,
        averageCostLower: out.lower,
        averageCostUpper: out.upper,
        policy: summarizePolicy(policy, B),
        solver: facts(out, S, tried, totalIterations, started, tailMass),
      };
      return { result, warmStart: { values: out.values, policy: out.policy } };
    }
    warm = { values: out.values, policy: out.policy };
    S = grownMaxQueue(S, B, evaluation.stationary);
  }
}

function isValidated(x: unknown): x is ValidatedScenario {
  return typeof x === 'object' && x !== null && 'params' in x && 'solver' in x && (x as ValidatedScenario).params.meanService instanceof Float64Array;
}

function compileGuarded(p: ModelParams, S: number, pmfs: PmfTable, fixedS: boolean): CompiledModel {
  try {
    return compileModel(p, S, pmfs);
  } catch (e) {
    if (e instanceof LimitError && !fixedS) {
      throw new LimitError(
        'arrivalRate',
        `the queue needs more than S = ${S} states to be solved within the bounds (${LIMITS.maxQueue} states, ${LIMITS.maxBandEntries} band entries): the load is too close to capacity`,
      );
    }
    throw e;
  }
}

/** A valid scenario whose queue needs more room than the documented bounds allow. */
function tooClose(detail: string): LimitError {
  return new LimitError('arrivalRate', `is too close to capacity for the solver's bounds (${detail})`);
}

/** First S of the automatic search: where the greedy policy's queue has (almost) no mass left, plus room to wait. */
function initialMaxQueue(p: ModelParams, pmfs: PmfTable, signal?: AbortSignal): number {
  const B = p.maxBatchSize;
  let q;
  try {
    q = tailQuantile(p, greedyPolicy(B), INITIAL_QUANTILE_MASS, { pmfs, signal });
  } catch (e) {
    if (e instanceof LimitError) throw tooClose(e.reason);
    throw e;
  }
  return Math.max(withRoomToWait(q, B), 32);
}

/**
 * Next S after a failed tail check: where the solved policy's own queue (exact, on the extended
 * chain) leaves < 1/100 of the bound, plus room for a batch, and at least a quarter more than
 * now. Doubling instead overshoots by far on deep queues (S = 27,365 → 54,743 where ~30,000 did).
 */
function grownMaxQueue(S: number, B: number, stationary: Float64Array): number {
  const q = upperQuantile(stationary.length, (s) => stationary[s], TAIL_MASS_BOUND / 100);
  return Math.max(Math.ceil(1.25 * S) + B, withRoomToWait(q, B));
}

/** Adapts values/policy solved at another S: cut, or extend quadratically / by serving min(s, B). */
function fitWarmStart(w: WarmStart, model: CompiledModel): { values?: Float64Array; policy?: Int32Array } {
  const n = model.S + 1;
  const out: { values?: Float64Array; policy?: Int32Array } = {};
  if (w.values && w.values.length >= 3) {
    const v = new Float64Array(n);
    const m = Math.min(n, w.values.length);
    v.set(w.values.subarray(0, m));
    if (m < n) {
      const top = w.values.length - 1;
      const h0 = w.values[top];
      const d1 = h0 - w.values[top - 1];
      const d2 = h0 - 2 * w.values[top - 1] + w.values[top - 2];
      for (let s = m; s < n; s++) {
        const k = s - top;
        v[s] = h0 + k * d1 + ((k * (k + 1)) / 2) * d2;
      }
    }
    out.values = v;
  }
  if (w.policy) {
    const a = new Int32Array(n);
    const m = Math.min(n, w.policy.length);
    a.set(w.policy.subarray(0, m));
    for (let s = m; s < n; s++) a[s] = Math.min(s, model.B);
    a[n - 1] = Math.max(a[n - 1], Math.min(n - 1, model.B));
    out.policy = a;
  }
  return out;
}

function facts(out: SolverOutput, S: number, tried: number[], totalIterations: number, started: number, tailMass: number) {
  return {
    backend: out.backend,
    adapter: out.adapter,
    method: out.method,
    maxQueue: S,
    states: S + 1,
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

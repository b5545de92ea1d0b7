import { arrivalsOf, buildArrivalTable, type ArrivalTable } from '../model/arrivalTable.js';
import { compileModel, MIN_MAX_QUEUE, type CompiledModel } from '../model/compile.js';
import { LimitError, ScenarioError, throwIfAborted } from '../model/errors.js';
import { LIMITS } from '../model/limits.js';
import { likeliestPhase } from '../model/mmpp/process.js';
import type { Backend, Method, ModelParams, ValidatedScenario } from '../model/scenario.js';
import { validateScenario } from '../model/validate.js';
import { latencyFigures } from '../latency/summary.js';
import { evaluatePolicy, type DetailedEvaluation } from '../policy/evaluate.js';
import { evaluationPastBound } from '../policy/extension.js';
import type { Policy } from '../policy/policy.js';
import { resolveSolver } from './backends.js';
import { sameActions } from './cpu/pi.js';
import { grownMaxQueue, initialMaxQueue, loadCause, loadField, loadRefusal, refuseFarPastBounds, tailMassAbove, TAIL_MASS_BOUND } from './maxQueue.js';
import { describeEvaluation, type SolveResult, type SolverFacts } from './result.js';
import type { Solver, SolverOutput, SolverProgress } from './types.js';
import { fitWarmStart, type WarmStart } from './warmStart.js';

export { TAIL_MASS_BOUND } from './maxQueue.js';
export type { WarmStart } from './warmStart.js';

export interface ScenarioSolveOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: SolverProgress) => void;
  readonly progressEvery?: number;
  /** Overrides the scenario's backend / method. */
  readonly backend?: Backend;
  readonly method?: Method;
  /** First S of the automatic search (tests use it to start from a degenerate S). */
  readonly initialMaxQueue?: number;
  /** Values/policy from a similar solved scenario (same B and phases): a warm start. */
  readonly warmStart?: WarmStart;
  /** Solver to use instead of resolveSolver's pick (batched GPU solves pass their collector's). */
  readonly solver?: Solver;
  /**
   * Response-time percentiles in the result (default true). Internal searches (plan, fleet,
   * frontier, warm starts) pass false: only the result a user gets pays for them.
   */
  readonly percentiles?: boolean;
}

export interface ScenarioSolution {
  readonly result: SolveResult;
  /** Final relative values (h̃, flat over (S+1)·M) and policy, for warm-starting neighbours. */
  readonly warmStart: { readonly values: Float64Array; readonly policy: Int32Array; readonly phases: number };
}

/**
 * Solves a scenario end to end: validate, choose S (automatically unless given), solve,
 * evaluate the policy exactly, check the tail (docs/model.md §4) and grow S warm-started until
 * it holds, then assemble the result object of §5. Poisson and MMPP arrivals take the same
 * path: the model has M = 1 or more phases.
 */
export async function solveScenario(input: unknown, opts: ScenarioSolveOptions = {}): Promise<SolveResult> {
  return (await solveScenarioDetailed(input, opts)).result;
}

export async function solveScenarioDetailed(input: unknown, opts: ScenarioSolveOptions = {}): Promise<ScenarioSolution> {
  const started = performance.now();
  const scenario = isValidated(input) ? input : validateScenario(input);
  const { params: p, solver: settings } = scenario;
  const proc = arrivalsOf(p);
  const M = proc.phases;
  const B = p.maxBatchSize;
  const fixedS = settings.maxQueue > 0;
  // Far past a bound by estimate, the search would meet it too, seconds later: say so now. Not
  // where the caller picks S or its first value: the estimate is of the search's own first S.
  if (!fixedS && opts.initialMaxQueue === undefined) refuseFarPastBounds(p);
  const table = buildArrivalTable(p, opts.signal);
  if (fixedS && settings.maxQueue < MIN_MAX_QUEUE) {
    throw new ScenarioError('solver.maxQueue', `must be ≥ ${MIN_MAX_QUEUE}, or 0 for automatic (got ${settings.maxQueue})`);
  }
  const tooClose = (e: LimitError) => tooCloseToCapacity(p, e);
  let S = fixedS ? settings.maxQueue : Math.max(opts.initialMaxQueue ?? initialMaxQueue(p, table, tooClose, opts.signal), MIN_MAX_QUEUE);
  const tried: number[] = [];
  let totalIterations = 0;
  let warm = opts.warmStart;
  const onProgress = progressInLikeliestPhase(opts.onProgress, M, likeliestPhase(proc));
  for (;;) {
    throwIfAborted(opts.signal);
    const model = compileGuarded(p, S, table, fixedS);
    // A policy solved at S could not be evaluated within the bounds: its refusal now, not after the solve.
    const unevaluable = evaluationPastBound(proc, table, S, B);
    if (unevaluable) throw tooClose(unevaluable);
    const solver = opts.solver ?? (await resolveSolver(opts.backend ?? settings.backend, opts.method ?? settings.method, model));
    // The exact evaluation of a policy on the extended chain, kept for the one the solver returns:
    // the tail check may ask it of a stable policy before the solver's last sweeps (worthCertifying).
    let evaluated: { actions: Int32Array; ev: DetailedEvaluation } | undefined;
    const evaluateAt = (actions: Int32Array): DetailedEvaluation => {
      if (evaluated && evaluated.actions.length === actions.length && sameActions(evaluated.actions, actions)) return evaluated.ev;
      const own = actions.slice();
      try {
        evaluated = { actions: own, ev: evaluatePolicy(p, { phases: M, actions: own, tailBatch: B }, { table, signal: opts.signal, minLevels: S + 1 }) };
      } catch (e) {
        if (e instanceof LimitError) throw tooClose(e);
        throw e;
      }
      return evaluated.ev;
    };
    const out = await solver.solve(model, {
      tolerance: settings.tolerance,
      maxIterations: settings.maxIterations,
      warmStart: fitWarmStart(warm, model),
      signal: opts.signal,
      onProgress,
      progressEvery: opts.progressEvery,
      ...(fixedS ? {} : { worthCertifying: (actions: Int32Array) => tailMassAbove(evaluateAt(actions).stationary, M, S, B) < TAIL_MASS_BOUND }),
    });
    tried.push(S);
    totalIterations += out.iterations;
    const policy: Policy = { phases: M, actions: out.policy, tailBatch: B };
    const ev = evaluateAt(out.policy);
    const tailMass = tailMassAbove(ev.stationary, M, S, B);
    const solved = { values: out.values, policy: out.policy, phases: M };
    warm = solved;
    if (fixedS || tailMass < TAIL_MASS_BOUND) {
      const result: SolveResult = {
        ...describeEvaluation(p, policy, ev),
        averageCostLower: out.lower,
        averageCostUpper: out.upper,
        solver: facts(out, model, tried, totalIterations, started, tailMass),
        // The final model and evaluation are at hand: the percentiles need nothing else.
        ...(opts.percentiles !== false ? latencyFigures(model, policy, ev) : {}),
      };
      return { result, warmStart: solved };
    }
    S = grownMaxQueue(S, B, ev.stationary, M);
  }
}

function isValidated(x: unknown): x is ValidatedScenario {
  return typeof x === 'object' && x !== null && 'params' in x && 'solver' in x && (x as ValidatedScenario).params.meanService instanceof Float64Array;
}

/** Progress reports carry one table of S+1 actions: the likeliest phase's, for several phases. */
function progressInLikeliestPhase(report: ((p: SolverProgress) => void) | undefined, M: number, main: number) {
  if (!report || M === 1) return report;
  return (q: SolverProgress) => {
    const levels = Math.floor(q.policy.length / M);
    const policy = new Int32Array(levels);
    for (let s = 0; s < levels; s++) policy[s] = q.policy[s * M + main];
    report({ ...q, policy });
  };
}

function compileGuarded(p: ModelParams, S: number, table: ArrivalTable, fixedS: boolean): CompiledModel {
  try {
    return compileModel(p, S, table);
  } catch (e) {
    if (!(e instanceof LimitError) || fixedS) throw e;
    // Say which bound bit and by how much (the compile error's own words), not only the list of bounds.
    throw loadRefusal(p, loadField(p), `the automatic search for S needs S = ${S}, beyond the solver's bounds (${e.reason.startsWith('must') ? `S ${e.reason}` : e.reason}): ${loadCause(p)}`, e.facts);
  }
}

/** A valid scenario whose queue needs more room than the documented bounds allow. */
function tooCloseToCapacity(p: ModelParams, e: LimitError): LimitError {
  return loadRefusal(p, loadField(p), `is too close to capacity for the solver's bounds (${e.reason})`, e.facts);
}

function facts(out: SolverOutput, model: CompiledModel, tried: number[], totalIterations: number, started: number, tailMass: number): SolverFacts {
  return {
    backend: out.backend,
    adapter: out.adapter,
    method: out.method,
    maxQueue: model.S,
    states: (model.S + 1) * model.M,
    iterations: out.iterations,
    totalIterations,
    seconds: (performance.now() - started) / 1000,
    tailMass,
    // An explicit S whose tail check fails: converged, but on the truncated model only.
    stopReason: out.stopReason === 'converged' && tailMass >= TAIL_MASS_BOUND ? 'tail-mass' : out.stopReason,
    maxQueueTried: tried,
    ...(out.gpuIterations !== undefined ? { gpuIterations: out.gpuIterations } : {}),
    ...(out.polishSteps !== undefined ? { polishSteps: out.polishSteps } : {}),
  };
}

import { classesOperator, sweepWork, type Overflow } from '../../model/classes/bellman.js';
import { ParallelSweeps, sweepThreads } from '../../model/classes/parallelStep.js';
import type { BellmanOperator } from '../operator.js';
import { compileClasses, type ClassesModel } from '../../model/classes/compile.js';
import { coordsOf, extendBox, sizeOf } from '../../model/classes/grid.js';
import type { ValidatedClassesScenario } from '../../model/classes/params.js';
import { boundaryMass, stationaryLaw } from '../../model/classes/stationary.js';
import { singleClassParams, validateClassesScenario } from '../../model/classes/validate.js';
import { LimitError, ScenarioError, throwIfAborted } from '../../model/errors.js';
import { valueIterate, type RviOutput } from '../cpu/rvi.js';
import type { JointGpuStage, SolveOptions } from '../types.js';
import { TAIL_MASS_BOUND } from '../maxQueue.js';
import { solveScenario } from '../solveScenario.js';
import type { SolverProgress } from '../types.js';
import { classesFigures } from './figures.js';
import { firstBox } from './firstBox.js';
import { gpuStart, type GpuRun } from './gpuStart.js';
import { describeClassesPolicy, type ClassesSolveResult } from './result.js';

export interface ClassesSolveOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: SolverProgress) => void;
  readonly progressEvery?: number;
  /** First S_c of the automatic search per class (tests start small). */
  readonly initialMaxQueue?: readonly number[];
  /**
   * Called with each box S = (S_1, …, S_C) before it is solved (one class: with each S the
   * single-class solve reports), so a caller with a bound on states (the service) can stop the
   * automatic growth by aborting `signal`.
   */
  readonly onBox?: (S: readonly number[]) => void;
  /** Threads of the f64 sweeps (default: every core for boxes of PARALLEL_MIN_STATES states or more, else 1). */
  readonly threads?: number;
  /**
   * A neighbouring scenario's last box and relative values (its onValues) to start from: the first
   * box is that one on the automatic axes, its values extended or cut to fit (grid.ts).
   */
  readonly warmStart?: ClassesWarmStart;
  /** Called with the last box and its relative values, to warm-start a neighbour. */
  readonly onValues?: (w: ClassesWarmStart) => void;
  /** The GPU's f32 stage instead of resolveJointStage's pick (batched solves pass their collector's). */
  readonly jointStage?: JointGpuStage;
}

/** A box S = (S_1, …, S_C) and relative values over it (flat, last class fastest). */
export interface ClassesWarmStart {
  readonly S: readonly number[];
  readonly values: Float64Array;
}

/**
 * Solves a multi-class scenario (docs/model.md §10). One class is the single-class model of §2
 * and goes through solveScenario unchanged, so C = 1 equals the single-class solve bit for bit.
 * Two or three classes: relative value iteration (the one loop, valueIterate) on the joint
 * operator; then the stationary law of the returned policy; every automatic axis whose top
 * B_c levels hold ≥ TAIL_MASS_BOUND is grown (S_c → ⌈1.5·S_c⌉ + B_c) and the solve repeated,
 * warm-started from the smaller box's values extrapolated quadratically (grid.ts).
 */
export async function solveClassesScenario(input: unknown, opts: ClassesSolveOptions = {}): Promise<ClassesSolveResult> {
  const started = performance.now();
  const scenario = isValidatedClasses(input) ? input : validateClassesScenario(input);
  const { params: p, solver: settings } = scenario;
  if (p.classes.length === 1) return fromSingleClass(scenario, opts);
  if (settings.method === 'POLICY_ITERATION') throw new ScenarioError('solver.method', 'POLICY_ITERATION is single-class for now; several classes are solved by VALUE_ITERATION (AUTO)');
  const fixed = p.classes.map((c) => c.maxQueue > 0);
  const from = usableWarmStart(opts.warmStart, p.classes.length);
  let S = firstBox(p, from?.S ?? opts.initialMaxQueue);
  const tried: number[][] = [];
  let total = 0;
  let warm: { values: Float64Array; S: readonly number[] } | undefined = from;
  /** The GPU's adapter and f32 sweeps over every box, when it ran. */
  let gpu: { adapter: string; sweeps: number } | undefined;
  for (;;) {
    opts.onBox?.(S);
    throwIfAborted(opts.signal);
    const model = compileClasses(p, S);
    let start: Float64Array | undefined;
    if (warm) {
      start = new Float64Array(sizeOf(model.dims));
      extendBox(warm.values, warm.S, start, model.dims);
    }
    const threads = sweepThreads(model.states, opts.threads);
    const engine = threads > 1 ? await ParallelSweeps.start(model, threads) : undefined;
    // One operator per overflow rule and box (each holds its sweep buffers), shared by the refinement and the RVI.
    const operators = new Map<Overflow, BellmanOperator>();
    const operator = (overflow: Overflow): BellmanOperator => {
      let op = operators.get(overflow);
      if (!op) operators.set(overflow, (op = engine?.operator(overflow) ?? classesOperator(model, overflow)));
      return op;
    };
    let boxOut: Awaited<ReturnType<typeof solveBox>>;
    let boxGpu: GpuRun | undefined;
    try {
      // Backend GPU, or AUTO where the GPU pays off: the f32 stage, refined on the GPU against f64 residuals, starts the f64 solve below.
      const started = await gpuStart(model, operator, start, settings.tolerance, opts.signal, settings.backend, opts.jointStage);
      const from = started.values;
      boxGpu = started.gpu;
      if (boxGpu) gpu = { adapter: boxGpu.adapter, sweeps: (gpu?.sweeps ?? 0) + boxGpu.sweeps };
      const rviOpts: SolveOptions = {
        tolerance: settings.tolerance,
        maxIterations: settings.maxIterations,
        ...(from ? { warmStart: { values: from } } : {}),
        signal: opts.signal,
        onProgress: opts.onProgress,
        progressEvery: opts.progressEvery,
      };
      boxOut = await solveBox(model, operator, rviOpts, fixed, opts.signal);
    } finally {
      engine?.close();
    }
    const { out, lumped } = boxOut;
    tried.push(S.slice());
    // The refinement's f64 steps are f64 sweeps too (the GPU's are counted apart).
    const iterations = out.iterations + (boxGpu?.cpuSteps ?? 0);
    total += iterations;
    // From the uniform law: a smaller box's law would be a start only for its own states (the law is cheap: stationary.ts).
    const law = stationaryLaw(model, out.policy, { signal: opts.signal });
    const tail = boundaryMass(model, law.pi);
    if (lumped) refuseSmallFixedBox(S, fixed, tail, lumped);
    const grow = tail.map((m, c) => !fixed[c] && !(m < TAIL_MASS_BOUND));
    if (!grow.some(Boolean)) {
      opts.onValues?.({ S: S.slice(), values: out.values });
      const figures = classesFigures(model, out.policy, law.pi);
      const tailHeld = tail.every((m) => m < TAIL_MASS_BOUND);
      return {
        classes: figures.classes.map((f, c) => ({ ...f, arrivalRate: p.classes[c].arrivalRate, maxBatchSize: p.classes[c].maxBatchSize })),
        averageCost: figures.averageCost,
        meanPower: figures.meanPower,
        averageCostLower: out.lower,
        averageCostUpper: out.upper,
        policy: describeClassesPolicy(model, out.policy),
        solver: {
          backend: gpu ? 'webgpu' : 'cpu',
          method: `${gpu ? 'webgpu-mpi-f32+f64-refinement+' : ''}${lumped ? 'value-iteration (overflow lumped at the tops)' : 'value-iteration'}`,
          ...(gpu ? { adapter: gpu.adapter, gpuIterations: gpu.sweeps } : {}),
          threads,
          states: model.states,
          iterations,
          totalIterations: total,
          seconds: (performance.now() - started) / 1000,
          stopReason: out.stopReason === 'converged' && !tailHeld ? 'tail-mass' : out.stopReason,
          maxQueueTried: tried,
          tailMass: tail,
          sweepWork: sweepWork(model),
        },
        latencyUnavailable: SEVERAL_CLASSES_PERCENTILES,
      };
    }
    warm = { values: out.values, S: S.slice() };
    S = S.map((s, c) => (grow[c] ? Math.ceil(1.5 * s) + p.classes[c].maxBatchSize : s));
  }
}

/**
 * Why a result of several classes has no percentiles: a result states the gap rather than leaving
 * it silent. The tagged request's passage runs over the other classes' queues as well as (ahead,
 * behind), and it has cycles there (a batch of another class can leave every count as it was,
 * its arrivals replacing the batch), which neither the single-class mixture nor the transform
 * recursion of §9 (both ordered by k falling and m rising) covers.
 */
const SEVERAL_CLASSES_PERCENTILES =
  'per-class percentiles are not computed for several classes yet: the tagged request’s passage runs over the other classes’ queues too, with cycles (a batch of another class can leave every count as it was) that the single-class methods of docs/model.md §9 do not cover; the per-class means are exact';

/**
 * One box: RVI on the model of §10 (quadratic extrapolation past the tops), guarded. On a top
 * layer n_c = S_c waiting is barred, and serving another class leaves n_c at S_c with every
 * class-c arrival of the batch past the top, valued (1 + m + m(m+1)/2)·h(S_c) − (m + 2q)·h(S_c − 1)
 * + q·h(S_c − 2): a signed row whose weight on the layer exceeds 1 by about (τ/l)·(2μ + μ²/2),
 * μ = λ_c·l_c'(b) (more at a corner, the product over its axes). At high load that amplifies any
 * fall of the layer's values, the minimum over actions picks the amplifying action, and the values
 * run to −∞ at whatever box (the guard sees the interval widen). The same box is then solved with
 * the overflow lumped at the tops, a genuine MDP whose Odoni bounds certify its optimum and whose
 * interval never widens; the tail check decides, as always, whether that box is big enough.
 */
async function solveBox(model: ClassesModel, operator: (overflow: Overflow) => BellmanOperator, rviOpts: SolveOptions, fixed: boolean[], signal?: AbortSignal): Promise<{ out: RviOutput; lumped?: RviDivergenceFacts }> {
  const out = await valueIterate(operator('extrapolate'), rviOpts, { stopOnDivergence: true });
  if (!out.diverged) return { out };
  const facts: RviDivergenceFacts = { ...out.diverged, state: largestValueState(out.values), dims: Array.from(model.dims) };
  const S = Array.from(model.S);
  const lumpedOp = operator('lump');
  let from = rviOpts.warmStart;
  if (fixed.some(Boolean) && rviOpts.tolerance < PRECHECK_TOLERANCE) {
    // A fixed box far too small is refused from a rough solve: the full one would be as long as a
    // solve at an adequate box, only to be refused (the top's mass is orders above the bound).
    const rough = await valueIterate(lumpedOp, { ...rviOpts, tolerance: PRECHECK_TOLERANCE }, { stopOnDivergence: true });
    if (!rough.diverged && rough.stopReason === 'converged') {
      const tail = boundaryMass(model, stationaryLaw(model, rough.policy, { signal }).pi);
      refuseSmallFixedBox(S, fixed, tail, facts, PRECHECK_MARGIN * TAIL_MASS_BOUND, `a rough solve (interval ${PRECHECK_TOLERANCE.toExponential(0)} relative) of `);
      from = { values: rough.values };
    }
  }
  const lumpedOut = await valueIterate(lumpedOp, { ...rviOpts, ...(from ? { warmStart: from } : {}) }, { stopOnDivergence: true });
  if (lumpedOut.diverged) {
    // Stochastic rows keep the interval from widening; this is a backstop against rounding gone wrong, never garbage bounds.
    throw new LimitError('classes', `relative value iteration diverged at S = (${S.join(', ')}) with the overflow lumped too (interval ${lumpedOut.diverged.narrowest.toExponential(2)} → ${lumpedOut.diverged.width.toExponential(2)} by sweep ${lumpedOut.diverged.iteration})`);
  }
  return { out: lumpedOut, lumped: facts };
}

/** The rough lumped solve of a fixed box, and how far above the tail bound its top's mass must be to refuse from it. */
const PRECHECK_TOLERANCE = 1e-3;
const PRECHECK_MARGIN = 1e3;

interface RviDivergenceFacts {
  readonly iteration: number;
  readonly narrowest: number;
  readonly width: number;
  /** Flat index of the state whose relative value ran furthest (where the growth sits). */
  readonly state: number;
  readonly dims: number[];
}

function largestValueState(h: Float64Array): number {
  let at = 0;
  for (let x = 1; x < h.length; x++) if (!(Math.abs(h[x]) <= Math.abs(h[at]))) at = x;
  return at;
}

/**
 * A fixed box whose extrapolated solve diverged is kept only if the lumped truncation's policy
 * leaves its top nearly empty: lumping makes waiting until the top look cheap (docs/model.md §4.1),
 * so at a box whose top holds mass its optimum is not the system's.
 */
function refuseSmallFixedBox(S: number[], fixed: boolean[], tail: number[], d: RviDivergenceFacts, bound = TAIL_MASS_BOUND, solve = ''): void {
  const bad = tail.map((m, c) => (fixed[c] && !(m < bound) ? c : -1)).filter((c) => c >= 0);
  if (bad.length === 0) return;
  const c = bad.reduce((a, b) => (tail[b] > tail[a] ? b : a));
  const where = coordsOf(d.state, d.dims).join(', ');
  throw new LimitError(
    `classes[${c}].maxQueue`,
    `S = (${S.join(', ')}) is too small for this load: relative value iteration on the quadratic tail extrapolation diverged ` +
      `(its rows on the top layers amplify the values there: the interval widened from ${d.narrowest.toExponential(2)} to ${d.width.toExponential(2)} by sweep ${d.iteration}, ` +
      `fastest at n = (${where})), and ${solve}the truncation with the overflow lumped at the tops puts ${bad.map((k) => `${tail[k].toExponential(2)} of the stationary mass within B_${k + 1} of classes[${k}].maxQueue = ${S[k]}`).join(' and ')} ` +
      `(bound ${bound.toExponential(0)}); raise ${bad.map((k) => `classes[${k}].maxQueue`).join(' and ')} or set ${bad.length > 1 ? 'them' : 'it'} to 0 (automatic)`,
  );
}

/** A warm start whose box fits C classes (every S_c ≥ 2) and its values, else none. */
function usableWarmStart(w: ClassesWarmStart | undefined, C: number): ClassesWarmStart | undefined {
  if (!w || w.S.length !== C || !w.S.every((s) => Number.isInteger(s) && s >= 2)) return undefined;
  return w.values.length === sizeOf(w.S.map((s) => s + 1)) ? w : undefined;
}

/** Whether this is a multi-class scenario validated already (validateClassesScenario's output). */
export function isValidatedClasses(x: unknown): x is ValidatedClassesScenario {
  return typeof x === 'object' && x !== null && 'params' in x && 'solver' in x && Array.isArray((x as ValidatedClassesScenario).params.classes);
}

/** One class: the single-class solve, restated in the multi-class result's terms. */
async function fromSingleClass(scenario: ValidatedClassesScenario, opts: ClassesSolveOptions): Promise<ClassesSolveResult> {
  const cl = scenario.params.classes[0];
  const single = await solveScenario(
    { params: singleClassParams(scenario.params), solver: { ...scenario.solver, maxQueue: cl.maxQueue } },
    { signal: opts.signal, onProgress: progressWithBox(opts), progressEvery: opts.progressEvery, ...(opts.initialMaxQueue ? { initialMaxQueue: opts.initialMaxQueue[0] } : {}) },
  );
  const actions = single.policy.actions;
  const s = single.solver;
  return {
    classes: [{ name: cl.name, meanResponseTime: single.meanResponseTime, utilization: single.utilization, meanBatchSize: single.meanBatchSize, arrivalRate: cl.arrivalRate, maxBatchSize: cl.maxBatchSize }],
    averageCost: single.averageCost,
    meanPower: single.meanPower,
    averageCostLower: single.averageCostLower,
    averageCostUpper: single.averageCostUpper,
    policy: {
      maxQueue: [s.maxQueue],
      serveClass: actions.map((a) => (a === 0 ? -1 : 0)),
      batch: actions.slice(),
      controlLimits: [actions.some((a) => a > 0) ? single.policy.controlLimit : null],
    },
    solver: { backend: s.backend, method: s.method, states: s.states, iterations: s.iterations, totalIterations: s.totalIterations, seconds: s.seconds, stopReason: s.stopReason, maxQueueTried: s.maxQueueTried.map((v) => [v]), tailMass: [s.tailMass] },
    single,
  };
}

/** One class: the single-class solve's progress also reports its S as the box (onBox). */
function progressWithBox(opts: ClassesSolveOptions): ((p: SolverProgress) => void) | undefined {
  const { onBox, onProgress } = opts;
  if (!onBox) return onProgress;
  return (p) => {
    onBox([p.maxQueue]);
    onProgress?.(p);
  };
}

import { LimitError, ScenarioError, throwIfAborted } from '../model/errors.js';
import { scaledMmpp } from '../model/mmpp/process.js';
import type { Backend, ValidatedScenario } from '../model/scenario.js';
import type { Policy } from '../policy/policy.js';
import { latencyModel, latencyOfEvaluation } from '../latency/summary.js';
import { lawPercentile, undecided } from '../latency/targetPercentile.js';
import { evaluatePolicy } from '../policy/evaluate.js';
import { simulate } from '../sim/simulate.js';
import { asValidated, computeFrontier } from './frontier.js';
import { planScenario, type PlanResult } from './constrained.js';
import { formatDuration } from './units.js';
import { WeightSolver } from './weights.js';
import { describePolicy, policyOf } from '../solve/result.js';

/**
 * Fleet sizing: a total rate Λ split evenly over n identical accelerators, each running its
 * own queue at Λ/n. The least n whose accelerators can meet the mean latency target (the
 * least achievable E[R] at Λ/n is ≤ target), each then running the least-power policy that
 * meets it (the SLO-constrained solve). With a p99 target the deployed policy must also
 * meet it, by its exact p99 (the response-time law) where available, else in simulation: the plan's best deterministic policy if it does, else the
 * least-power frontier vertex that does (the frontier up to the mean target, scanned from
 * low power up). n is rejected when even the least-latency policy misses the p99.
 */
export interface FleetOptions {
  /** Λ, requests/s over the whole fleet. */
  readonly totalRate: number;
  /** Mean response time target, seconds. */
  readonly latencyTarget: number;
  /** 99th-percentile response time target, seconds (exact where the law is available, else simulated). */
  readonly p99Target?: number;
  /** Largest fleet to consider (default 1024). */
  readonly maxAccelerators?: number;
  /** Simulation used for the p99 check. */
  readonly simulation?: { readonly requests?: number; readonly seed?: number };
  readonly resolution?: number;
  readonly signal?: AbortSignal;
  readonly backend?: Backend;
  /** Called before each solve and simulation, for progress lines. */
  readonly onProgress?: (step: string) => void;
}

export interface FleetTail {
  /** 'plan': the plan's best deterministic policy meets the p99; 'frontier': a lower-latency frontier vertex is run instead. */
  readonly policy: 'plan' | 'frontier';
  readonly controlLimit: number;
  /** Exact figures of the policy run. */
  readonly meanResponseTime: number;
  readonly meanPower: number;
  /** Its p99, seconds: exact or simulated (`p99Method`). */
  readonly p99: number;
  /** p99 of the plan's deterministic policy, whichever is run. */
  readonly planP99: number;
  /** How `p99` was found: `exact` (the response-time law, docs/model.md §9) or `simulation` where the law is unavailable. */
  readonly p99Method: 'exact' | 'simulation';
  /** Policies whose p99 was computed or simulated for this accelerator count. */
  readonly simulated: number;
  readonly requests: number;
  readonly seed: number;
}

export interface FleetPoint {
  readonly accelerators: number;
  readonly ratePerAccelerator: number;
  /** The SLO-constrained solve of one accelerator at Λ/n. */
  readonly plan: PlanResult;
  /** n × the per-accelerator optimum (a randomised mix when binding), watts; with a p99 target, n × the power of the policy run. */
  readonly fleetPower: number;
  /** n × the best deterministic policy's power (with a p99 target: of the policy run), watts. */
  readonly fleetPowerDeterministic: number;
  /** The p99 check, when a p99 target was given. */
  readonly tail?: FleetTail;
}

export interface FleetResult {
  readonly totalRate: number;
  readonly latencyTarget: number;
  readonly p99Target?: number;
  /** The least n meeting the targets. */
  readonly accelerators: number;
  readonly at: FleetPoint;
  /** The same at n + 1, for the power cost of one more accelerator (its tail verdict may fail: reported, not required). */
  readonly next: FleetPoint;
  /** Every n tried below the answer and why it failed. */
  readonly rejected: { readonly accelerators: number; readonly reason: string }[];
}

export const DEFAULT_MAX_ACCELERATORS = 1024;
const P99_DEFAULT_REQUESTS = 200_000;

type Attempt = { point: FleetPoint; reason: null } | { point: FleetPoint | null; reason: string };

export async function sizeFleet(input: unknown, o: FleetOptions): Promise<FleetResult> {
  const base = asValidated(input);
  const p = base.params;
  const B = p.maxBatchSize;
  const maxN = o.maxAccelerators ?? DEFAULT_MAX_ACCELERATORS;
  if (!(o.totalRate > 0) || !Number.isFinite(o.totalRate)) throw new ScenarioError('totalRate', `must be a positive rate (got ${o.totalRate})`);
  let minService = Infinity;
  for (let b = 1; b <= B; b++) minService = Math.min(minService, p.meanService[b]);
  if (!(o.latencyTarget > minService)) {
    throw new ScenarioError(
      'latencyTarget',
      `${formatDuration(o.latencyTarget)} cannot be met by any number of accelerators: every request waits at least its batch's service time, and the shortest is ${formatDuration(minService)}`,
    );
  }
  // Fewest accelerators that can be stable at all: Λ/n < B/l(B).
  const capacity = B / p.meanService[B];
  const nMin = Math.floor(o.totalRate / capacity) + 1;
  if (nMin > maxN) {
    throw new LimitError('totalRate', `${o.totalRate} /s needs more than ${maxN} accelerators of capacity ${capacity} /s each just to be stable`);
  }
  // Arrivals routed at random: each accelerator sees Λ/n, with an MMPP's traffic shape kept (its rates scaled).
  const at = (n: number): ValidatedScenario => {
    const rate = o.totalRate / n;
    const proc = p.arrivalProcess;
    return { params: { ...p, arrivalRate: rate, ...(proc ? { arrivalProcess: scaledMmpp(proc, rate / proc.meanRate) } : {}) }, solver: base.solver };
  };
  const progress = (n: number) => (step: string) => o.onProgress?.(`${n} accelerators: ${step}`);
  const each = (n: number): string => `${+(o.totalRate / n).toPrecision(6)} /s each`;

  // One accelerator count; `point` is null when even the mean target is out of reach.
  const attempt = async (n: number): Promise<Attempt> => {
    throwIfAborted(o.signal);
    const sc = at(n);
    const least = await new WeightSolver(sc, { signal: o.signal, backend: o.backend, onProgress: progress(n) }).solveAt(Infinity);
    if (least.figures.meanResponseTime > o.latencyTarget) {
      return { point: null, reason: `least achievable mean response time ${formatDuration(least.figures.meanResponseTime)} at ${each(n)}` };
    }
    const planOpts = { resolution: o.resolution, signal: o.signal, backend: o.backend, targetField: 'latencyTarget', onProgress: progress(n) };
    const plan = await planScenario(sc, { kind: 'latency', seconds: o.latencyTarget }, planOpts);
    if (o.p99Target === undefined) return { point: point(n, o.totalRate, plan, undefined), reason: null };
    const tail = await tailPolicy(sc, plan, least.policy, o.p99Target, { ...o, onProgress: progress(n) });
    const pt = point(n, o.totalRate, plan, tail.tail);
    return tail.ok ? { point: pt, reason: null } : { point: pt, reason: `${tail.tail.p99Method === 'exact' ? 'exact' : 'simulated'} p99 ${formatDuration(tail.tail.p99)} even with the least-latency policy at ${each(n)}` };
  };

  const rejected: { accelerators: number; reason: string }[] = [];
  for (let n = nMin; n <= maxN; n++) {
    const here = await attempt(n);
    if (here.reason !== null) {
      rejected.push({ accelerators: n, reason: here.reason });
      continue;
    }
    const next = await attempt(n + 1);
    return {
      totalRate: o.totalRate,
      latencyTarget: o.latencyTarget,
      p99Target: o.p99Target,
      accelerators: n,
      at: here.point,
      // n + 1 meets the mean target whenever n does in practice; should it not, say so rather than guess.
      next: next.point ?? failNext(n + 1, next.reason ?? ''),
      rejected,
    };
  }
  throw new LimitError('maxAccelerators', `no fleet of up to ${maxN} accelerators meets the targets (last: ${rejected[rejected.length - 1]?.reason ?? 'none tried'})`);
}

function failNext(n: number, reason: string): never {
  throw new LimitError('totalRate', `${n} accelerators cannot meet the mean target although ${n - 1} can: ${reason}`);
}

function point(n: number, total: number, plan: PlanResult, tail: FleetTail | undefined): FleetPoint {
  return {
    accelerators: n,
    ratePerAccelerator: total / n,
    plan,
    fleetPower: n * (tail ? tail.meanPower : plan.optimum.meanPower),
    fleetPowerDeterministic: n * (tail ? tail.meanPower : plan.deterministic.meanPower),
    ...(tail ? { tail } : {}),
  };
}

/**
 * The least-power deterministic policy meeting both targets at this accelerator count, if
 * any: the plan's deterministic policy, else frontier vertices with E[R] ≤ target from low
 * power up. The least-latency vertex goes first among those: if even it misses the p99,
 * the count is rejected without simulating the rest.
 */
async function tailPolicy(
  sc: ValidatedScenario,
  plan: PlanResult,
  leastLatency: Policy,
  p99Target: number,
  o: FleetOptions,
): Promise<{ ok: boolean; tail: FleetTail }> {
  const requests = o.simulation?.requests ?? P99_DEFAULT_REQUESTS;
  const seed = o.simulation?.seed ?? 1;
  const B = sc.params.maxBatchSize;
  let simulated = 0;
  const methods = new Map<Policy, 'exact' | 'simulation'>();
  // The exact p99 where the law is available (Poisson arrivals, within its cost guard); else simulation.
  const p99Of = (policy: Policy): number => {
    simulated++;
    o.onProgress?.(`p99 of policy ${simulated}`);
    const ev = evaluatePolicy(sc.params, policy, { signal: o.signal });
    const exact = latencyOfEvaluation(sc.params, policy, ev);
    if ('latency' in exact) {
      methods.set(policy, 'exact');
      // At the results' settings; too close to the target for them to decide, at the tight defaults.
      const q = { t: exact.latency.p99, relative: exact.latency.accuracy.percentileRelative };
      return undecided(q, p99Target) ? lawPercentile(latencyModel(sc.params), policy, ev, 0.99, 'tight').t : q.t;
    }
    methods.set(policy, 'simulation');
    return simulate(sc.params, policy, { requests, seed, signal: o.signal }).percentiles.p99;
  };
  const methodOf = (policy: Policy): 'exact' | 'simulation' => methods.get(policy) ?? 'simulation';
  const planPolicy = policyOf(plan.deterministic.policy, B);
  const planP99 = p99Of(planPolicy);
  const common = { planP99, requests, seed };
  const d = plan.deterministic;
  if (planP99 <= p99Target) {
    const tail = { policy: 'plan' as const, controlLimit: d.policy.controlLimit, meanResponseTime: d.meanResponseTime, meanPower: d.meanPower, p99: planP99, p99Method: methodOf(planPolicy), simulated, ...common };
    return { ok: true, tail };
  }
  const leastP99 = p99Of(leastLatency);
  const frontier = await computeFrontier(sc, { maxLatency: o.latencyTarget, signal: o.signal, backend: o.backend, onProgress: o.onProgress });
  const candidates = frontier.vertices.filter((v) => v.figures.meanResponseTime <= o.latencyTarget).reverse();
  const asTail = (v: (typeof candidates)[number], p99: number, method: 'exact' | 'simulation'): FleetTail => ({
    policy: 'frontier',
    controlLimit: describePolicy(sc.params, v.policy).controlLimit,
    meanResponseTime: v.figures.meanResponseTime,
    meanPower: v.figures.meanPower,
    p99,
    p99Method: method,
    simulated,
    ...common,
  });
  const latencyEnd = candidates[candidates.length - 1];
  const leastMethod = methodOf(leastLatency);
  if (leastP99 > p99Target) return { ok: false, tail: asTail(latencyEnd, leastP99, leastMethod) };
  for (const v of candidates.slice(0, -1)) {
    const p99 = p99Of(v.policy);
    if (p99 <= p99Target) return { ok: true, tail: asTail(v, p99, methodOf(v.policy)) };
  }
  return { ok: true, tail: asTail(latencyEnd, leastP99, leastMethod) };
}

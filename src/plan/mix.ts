import { arrivalsOf, type ArrivalTable } from '../model/arrivalTable.js';
import { epochSojourn } from '../model/epoch.js';
import type { ModelParams } from '../model/scenario.js';
import { evaluatePolicy, type DetailedEvaluation } from '../policy/evaluate.js';
import { actionAt, broadcastPolicy, phasesOf, type Policy } from '../policy/policy.js';
import { figuresOf, planned, type Figures, type PlannedPolicy } from './figures.js';
import { evaluateMix } from './mixChain.js';
import { lagrangian } from './weights.js';

/**
 * Randomising between two deterministic policies in an SMDP, done so that its costs are
 * exactly the straight line between theirs.
 *
 * E[R] and E[P] are ratios of long-run averages (docs/model.md §5), so "use π1 with probability p"
 * has no single meaning: tossing a coin at every decision gives a point that is in general
 * not on the segment between π1 and π2 at all, and tossing once at time 0 gives one of the
 * two points, not their mix. What does work is switching at a regeneration point. Pick a
 * queue length r that both policies visit (recurrent under both). Each time the system is
 * at r, toss a coin: with probability q follow π1 until the next visit to r, else π2.
 * The cycles between visits to r are i.i.d., so by the renewal–reward theorem
 *
 *     E[P] = (q·E1 + (1−q)·E2) / (q·Y1 + (1−q)·Y2),   E[R] = (q·H1 + (1−q)·H2) / (λ·(q·Y1 + (1−q)·Y2)),
 *
 * with Y_i, E_i, H_i the expected length, energy and response-time sum of a π_i cycle.
 * Since E_i = P_i·Y_i and H_i = λ·R_i·Y_i, both are the same convex combination
 *
 *     (E[R], E[P]) = θ·(R1, P1) + (1−θ)·(R2, P2),   θ = q·Y1 / (q·Y1 + (1−q)·Y2),
 *
 * where θ is the share of time (and, since both serve every request at rate λ, of requests)
 * spent following π1. So a target on the segment fixes θ linearly, and the coin's
 * probability is the non-linear q = θ·Y2 / (θ·Y2 + (1−θ)·Y1). Y_i is the mean time between
 * visits to r, Σν_i·y / ν_i(r) from the embedded chain's stationary law ν_i.
 *
 * Under MMPP arrivals (docs/model.md §7) the decision epochs are a Markov chain on
 * (queue, phase), so the argument holds with r a pair (r, j): the coin is tossed at queue
 * length r in arrival phase j, and the sums run over both coordinates.
 *
 * When π1 and π2 differ only at r, the mode is irrelevant and this is a stationary randomised
 * policy: in state r take π1's action with probability q (Beutler & Ross 1985 show that the
 * constrained optimum always has such a form).
 */
export interface Mix {
  /** 'single-state': the two policies differ only at the coin's state (a stationary randomised policy). */
  readonly kind: 'single-state' | 'regenerative';
  /** The lower-latency (higher-power) policy, followed with share `timeShare`. */
  readonly first: PlannedPolicy;
  /** The lower-power (higher-latency) policy. */
  readonly second: PlannedPolicy;
  /** The queue length r at which the coin is tossed. */
  readonly state: number;
  /** The arrival phase of the coin's state (0 for Poisson arrivals): the coin is tossed at (r, phase). */
  readonly phase: number;
  /** What first and second do at the coin's state. */
  readonly actions: readonly [number, number];
  /** q: probability, at each visit to the coin's state, of following `first` until the next visit. */
  readonly probability: number;
  /** θ: long-run share of time and of requests spent following `first`. */
  readonly timeShare: number;
  /** Mean time between visits to the coin's state under first and under second, seconds. */
  readonly cycleTimes: readonly [number, number];
  /** Exact figures of the mix, from the embedded chain of the switching policy (mixChain.ts). */
  readonly figures: Figures;
}

/**
 * A policy and its exact evaluation. States are flat over (queue, phase): index s·M + j,
 * with M the scenario's arrival phases (1 for Poisson), and the policy acts in all M.
 */
export interface Evaluated {
  readonly policy: Policy;
  readonly ev: DetailedEvaluation;
}

/** Evaluates a policy for planning, as a table over all the scenario's phases. */
export function evaluated(p: ModelParams, policy: Policy, table: ArrivalTable): Evaluated {
  const whole = broadcastPolicy(policy, arrivalsOf(p).phases);
  return { policy: whole, ev: evaluatePolicy(p, whole, { table }) };
}

/** Mean length of an epoch of the embedded chain, Σν·y (model/epoch.ts). */
function meanEpoch(p: ModelParams, e: Evaluated): number {
  const proc = arrivalsOf(p);
  const M = proc.phases;
  let sum = 0;
  for (let i = 0; i < e.ev.stationary.length; i++) {
    const j = i % M;
    const a = actionAt(e.policy, (i - j) / M, j);
    sum += e.ev.stationary[i] * epochSojourn(p, proc, a, j);
  }
  return sum;
}

/** Mean time between visits to the flat state r under a policy: Σν·y / ν(r). */
export function cycleTime(p: ModelParams, e: Evaluated, r: number): number {
  return meanEpoch(p, e) / e.ev.stationary[r];
}

/**
 * The switching mix of first and second at the flat state r with time share θ, evaluated
 * exactly. r must be recurrent under both (ν(r) > 0 in both).
 */
export function buildMix(p: ModelParams, first: Evaluated, second: Evaluated, r: number, theta: number, pmfs: ArrivalTable): Mix {
  const M = arrivalsOf(p).phases;
  const y1 = cycleTime(p, first, r);
  const y2 = cycleTime(p, second, r);
  const q = theta >= 1 ? 1 : theta <= 0 ? 0 : (theta * y2) / (theta * y2 + (1 - theta) * y1);
  const differing = differingStates(first.policy, second.policy);
  const mixed = evaluateMix(p, first.policy, second.policy, r, q, pmfs);
  const j = r % M;
  const s = (r - j) / M;
  return {
    kind: differing.length === 1 && differing[0] === r ? 'single-state' : 'regenerative',
    first: planned(p, first.policy, first.ev),
    second: planned(p, second.policy, second.ev),
    state: s,
    phase: j,
    actions: [actionAt(first.policy, s, j), actionAt(second.policy, s, j)],
    probability: q,
    timeShare: theta,
    cycleTimes: [y1, y2],
    figures: figuresOf(mixed),
  };
}

/** Flat states where two policies with the same phases act differently (beyond both tables they agree). */
export function differingStates(a: Policy, b: Policy): number[] {
  const M = phasesOf(a);
  if (phasesOf(b) !== M) throw new Error(`differingStates: policies with ${M} and ${phasesOf(b)} phases`);
  const n = Math.max(a.actions.length, b.actions.length);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const j = i % M;
    const s = (i - j) / M;
    if (actionAt(a, s, j) !== actionAt(b, s, j)) out.push(i);
  }
  return out;
}

/** The flat state recurrent under both with the shortest cycles (most frequent coin tosses), or -1. */
export function commonRecurrentState(p: ModelParams, a: Evaluated, b: Evaluated): number {
  // Visit rate of r = ν(r) / Σν·y: one sum per policy, then a scan.
  const ya = meanEpoch(p, a);
  const yb = meanEpoch(p, b);
  let best = -1;
  let bestRate = 0;
  const n = Math.min(a.ev.stationary.length, b.ev.stationary.length);
  for (let s = 0; s < n; s++) {
    const na = a.ev.stationary[s];
    const nb = b.ev.stationary[s];
    if (!(na > 1e-12 && nb > 1e-12)) continue;
    const rate = Math.min(na / ya, nb / yb);
    if (rate > bestRate) {
      bestRate = rate;
      best = s;
    }
  }
  return best;
}

/**
 * Beutler–Ross reduction. a and c tie at weight μ (adjacent vertices). Switch the states
 * where they differ from a's action to c's one at a time: policy k takes c's action on the
 * first k of them. If every policy met on the way is also optimal at μ (on the segment, within
 * `tolerance` of the tie cost), bisection on k finds two consecutive ones on either side of
 * the target, and they differ in one state only. Returns null when some intermediate policy
 * is off the segment (then the caller mixes a and c themselves).
 */
export function reduceToSingleState(
  p: ModelParams,
  a: Evaluated,
  c: Evaluated,
  mu: number,
  leftOfTarget: (f: Figures) => boolean,
  tolerance: number,
  pmfs: ArrivalTable,
): { left: Evaluated; right: Evaluated; state: number; evaluated: Evaluated[] } | null {
  const states = differingStates(a.policy, c.policy);
  const M = phasesOf(a.policy);
  const n = Math.max(a.policy.actions.length, c.policy.actions.length);
  const tie = lagrangian(a.ev, mu);
  const build = (k: number): Policy => {
    const actions = new Int32Array(n);
    for (let i = 0; i < n; i++) actions[i] = actionAt(a.policy, Math.floor(i / M), i % M);
    for (let i = 0; i < k; i++) actions[states[i]] = actionAt(c.policy, Math.floor(states[i] / M), states[i] % M);
    return { actions, tailBatch: a.policy.tailBatch, ...(M > 1 ? { phases: M } : {}) };
  };
  const evaluated: Evaluated[] = [];
  let lo = 0;
  let hi = states.length;
  let left = a;
  let right = c;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    const policy = build(mid);
    let ev: DetailedEvaluation;
    try {
      ev = evaluatePolicy(p, policy, { table: pmfs });
    } catch {
      return null;
    }
    if (Math.abs(lagrangian(ev, mu) - tie) > tolerance * Math.abs(tie)) return null;
    const e = { policy, ev };
    evaluated.push(e);
    if (leftOfTarget(ev)) {
      lo = mid;
      left = e;
    } else {
      hi = mid;
      right = e;
    }
  }
  if (states.length === 0) return null;
  return { left, right, state: states[lo], evaluated };
}

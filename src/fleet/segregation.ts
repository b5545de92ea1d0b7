/**
 * Class segregation chosen by exact solves. Dedicate x[k][c] accelerators of kind k to
 * class c (every accelerator to exactly one class, every class at least one) and split
 * class c's traffic evenly over its n_c = Σ_k x[k][c] accelerators at random, so each sees
 * Poisson arrivals at λ_c/n_c: a single-server SMDP (docs/model.md §2) that the core solver solves
 * exactly. The fleet objective
 *
 *     w_lat · Σ_c weight_c·λ_c·E[R_c] / Λ + w_pow · Σ_accelerators E[P]
 *
 * is then separable: one accelerator of kind k serving class c contributes exactly the
 * optimal cost of the single-server scenario with latencyWeight w_lat·weight_c·λ_c/(Λ·n_c)
 * and powerWeight w_pow. So the best split and every group's optimal batching policy come
 * from solves, one per (kind, class, n_c), cached; the split is chosen by enumeration.
 *
 * A class with MMPP arrivals (Q, λ) split at random over n_c accelerators gives each the MMPP
 * (Q, λ/n_c): the same phase chain, thinned rates. The objective still separates (it is a sum
 * of each accelerator's long-run cost, which depends only on what that accelerator sees), so
 * each group is the single-server MMPP SMDP of docs/model.md §7, solved exactly with a per-phase
 * policy that acts on the class's current phase.
 */
import { ScenarioError, LimitError } from '../model/errors.js';
import { validateScenario } from '../model/validate.js';
import type { PhasePolicySummary, Policy } from '../policy/policy.js';
import { policyOf } from '../solve/result.js';
import { solveScenario } from '../solve/solveScenario.js';
import { Segregation } from './routers.js';
import { acceleratorKinds, pairScenario, type FleetParams } from './scenario.js';

/** One accelerator of kind `kind` dedicated to class `cls`, alone among n_c. */
export interface GroupSolve {
  readonly kind: number;
  readonly cls: number;
  /** Accelerators class `cls` has in all (its traffic is split over them). */
  readonly classAccelerators: number;
  /** Arrival rate one such accelerator sees, λ_c/n_c. */
  readonly rate: number;
  /** Its optimal contribution to the fleet objective. */
  readonly cost: number;
  readonly meanResponseTime: number;
  readonly meanPower: number;
  readonly controlLimit: number;
  readonly actions: readonly number[];
  /** MMPP arrivals: the policy of each arrival phase (controlLimit and actions are then the likeliest phase's). */
  readonly phases?: readonly PhasePolicySummary[];
}

export interface SegregationPlan {
  /** counts[k][c] = accelerators of kind k dedicated to class c. */
  readonly counts: readonly (readonly number[])[];
  /** The fleet objective of the plan (exact). */
  readonly averageCost: number;
  readonly meanPower: number;
  /** Per class: its exact mean response time and whether it meets its target (true when none). */
  readonly classes: readonly { readonly name: string; readonly accelerators: number; readonly meanResponseTime: number; readonly meetsTarget: boolean }[];
  /** Distinct (kind, class) groups of the plan, with their solved policies. */
  readonly groups: readonly GroupSolve[];
  /** How many splits were compared and how many exact solves that took. */
  readonly splitsCompared: number;
  readonly solves: number;
}

/** Most splits enumerated (C classes over N accelerators of one kind: C(N+C−1, C−1)). */
export const MAX_SPLITS = 200_000;

export interface SegregationOptions {
  readonly signal?: AbortSignal;
  /** Only splits in which every class meets its mean latency target (default false: cost only). */
  readonly requireTargets?: boolean;
}

/** The exact solve of one accelerator of kind k dedicated to class c among n_c; null when unstable. */
export async function solveGroup(f: FleetParams, k: number, c: number, nc: number, signal?: AbortSignal): Promise<GroupSolve | null> {
  const cl = f.classes[c];
  const kind = f.kinds[k];
  const total = f.classes.reduce((s, x) => s + x.arrivalRate, 0);
  const rate = cl.arrivalRate / nc;
  // A class with weight 0 under a pure latency objective still needs a positive weight to solve.
  const lw = Math.max((f.latencyWeight * cl.weight * cl.arrivalRate) / (total * nc), f.powerWeight > 0 ? 0 : 1e-12);
  const pair = pairScenario(kind, c, rate, lw, f.powerWeight);
  const proc = cl.arrivalProcess;
  if (proc) {
    // Random thinning of the class's MMPP: same generator, rates λ_j/n_c; arrivalRate 0 = its mean.
    pair.arrivalRate = 0;
    pair.arrivalProcess = { mmpp: { rates: Array.from(proc.rates, (r) => r / nc), generator: Array.from(proc.generator) } };
  }
  let scenario;
  try {
    scenario = validateScenario(pair);
  } catch (e) {
    if (e instanceof ScenarioError && proc && e.field === 'arrivalProcess' && / not below the capacity /.test(e.reason)) return null;
    if (e instanceof ScenarioError && e.field === 'arrivalRate') return null; // beyond this kind's capacity
    throw e;
  }
  const r = await solveScenario(scenario, { signal, percentiles: false });
  return {
    kind: k,
    cls: c,
    classAccelerators: nc,
    rate,
    cost: lw * r.meanResponseTime + f.powerWeight * r.meanPower,
    meanResponseTime: r.meanResponseTime,
    meanPower: r.meanPower,
    controlLimit: r.policy.controlLimit,
    actions: r.policy.actions,
    ...(r.policy.phases && r.policy.phases.length > 0 ? { phases: r.policy.phases } : {}),
  };
}

/** Every way to give each kind's accelerators to classes, each class at least one. */
export function* splits(f: FleetParams): Generator<number[][]> {
  const C = f.classes.length;
  const K = f.kinds.length;
  const compositions = (n: number, parts: number): number[][] => {
    if (parts === 1) return [[n]];
    const out: number[][] = [];
    for (let x = n; x >= 0; x--) for (const rest of compositions(n - x, parts - 1)) out.push([x, ...rest]);
    return out;
  };
  const perKind = f.kinds.map((k) => compositions(k.count, C));
  const idx = new Array<number>(K).fill(0);
  for (;;) {
    const counts = idx.map((i, k) => perKind[k][i]);
    let ok = true;
    for (let c = 0; c < C && ok; c++) ok = counts.some((row) => row[c] > 0);
    if (ok) yield counts;
    let k = 0;
    while (k < K && ++idx[k] === perKind[k].length) idx[k++] = 0;
    if (k === K) return;
  }
}

/** The best segregation of the fleet (see the module comment), or null when no split is stable (or meets the targets). */
export async function planSegregation(f: FleetParams, o: SegregationOptions = {}): Promise<SegregationPlan | null> {
  const C = f.classes.length;
  if (C > f.accelerators) throw new ScenarioError('accelerators', `segregation needs at least one accelerator per class: ${f.accelerators} accelerators for ${C} classes`);
  const cache = new Map<string, GroupSolve | null>();
  const group = async (k: number, c: number, n: number): Promise<GroupSolve | null> => {
    const key = `${k}/${c}/${n}`;
    if (!cache.has(key)) cache.set(key, await solveGroup(f, k, c, n, o.signal));
    return cache.get(key) ?? null;
  };
  let best: { counts: number[][]; cost: number } | null = null;
  let compared = 0;
  for (const counts of splits(f)) {
    if (++compared > MAX_SPLITS) throw new LimitError('accelerators', `more than ${MAX_SPLITS} segregation splits to compare; use fewer kinds or accelerators`);
    let cost = 0;
    for (let c = 0; c < C && cost < Infinity; c++) {
      const n = counts.reduce((s, row) => s + row[c], 0);
      let resp = 0;
      for (let k = 0; k < counts.length && cost < Infinity; k++) {
        if (counts[k][c] === 0) continue;
        const g = await group(k, c, n);
        if (g === null) cost = Infinity;
        else {
          cost += counts[k][c] * g.cost;
          resp += (counts[k][c] / n) * g.meanResponseTime;
        }
      }
      const target = f.classes[c].latencyTarget;
      if (o.requireTargets && target !== null && !(resp <= target)) cost = Infinity;
    }
    if (cost < Infinity && (best === null || cost < best.cost)) best = { counts, cost };
  }
  if (best === null) return null;
  const groups: GroupSolve[] = [];
  let power = 0;
  const classes = f.classes.map((cl, c) => {
    const n = best.counts.reduce((s, row) => s + row[c], 0);
    let resp = 0;
    best.counts.forEach((row, k) => {
      if (row[c] === 0) return;
      const g = cache.get(`${k}/${c}/${n}`);
      if (!g) throw new Error('internal: a chosen group was not solved');
      groups.push(g);
      resp += (row[c] / n) * g.meanResponseTime;
      power += row[c] * g.meanPower;
    });
    return { name: cl.name, accelerators: n, meanResponseTime: resp, meetsTarget: cl.latencyTarget === null || resp <= cl.latencyTarget };
  });
  return { counts: best.counts, averageCost: best.cost, meanPower: power, classes, groups, splitsCompared: compared, solves: cache.size };
}

/**
 * The plan as simulator inputs: the segregation router (groups[c] = accelerator indices) and
 * the optimal table of every (accelerator, class) it serves.
 */
export function segregationSetup(f: FleetParams, plan: SegregationPlan, seed: number): { router: Segregation; tables: (Policy | null)[][] } {
  const kindOf = acceleratorKinds(f);
  const C = f.classes.length;
  const groups: number[][] = f.classes.map(() => []);
  const tables: (Policy | null)[][] = [];
  const left = plan.counts.map((row) => [...row]);
  for (let a = 0; a < f.accelerators; a++) {
    const k = kindOf[a];
    const c = left[k].findIndex((x) => x > 0);
    left[k][c]--;
    groups[c].push(a);
    const g = plan.groups.find((x) => x.kind === k && x.cls === c);
    if (!g) throw new Error('internal: plan lacks a group it assigns');
    const row: (Policy | null)[] = new Array(C).fill(null);
    row[c] = policyOf(g, f.kinds[k].maxBatchSize);
    tables.push(row);
  }
  return { router: new Segregation(groups, seed), tables };
}

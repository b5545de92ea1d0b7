import { LimitError, ScenarioError } from '../../model/errors.js';
import type { ClassesParams } from '../../model/classes/params.js';
import { ArrivalSource, classSeed } from '../arrivals.js';
import { runEngine, type EngineOutput, type EngineSystem } from '../engine/index.js';
import { defaultWarmup, SIM_DEFAULTS, SIM_LIMITS } from '../limits.js';
import type { SimPolicy } from '../policies/types.js';
import { CONFIDENCE_LEVEL } from '../result.js';
import { meanHalfWidth } from '../stats.js';

export interface ClassesSimulateOptions {
  /** Requests to measure over all classes (default 10⁶). */
  readonly requests?: number;
  readonly warmup?: number;
  /** Seed of the arrival streams (class c: classSeed(seed, c)) and of the service stream. */
  readonly seed?: number;
  readonly ciBatches?: number;
  readonly signal?: AbortSignal;
}

/** One class's simulated mean response time and the half-width of its 95 % batch-means interval. */
export interface ClassSimFigures {
  readonly name: string;
  readonly requests: number;
  readonly meanResponseTime: number;
  readonly meanResponseCi: number | null;
}

/** What a simulation of several classes on one accelerator reports (docs/model.md §10's objective). */
export interface ClassesSimulation {
  readonly policy: string;
  readonly seed: number;
  readonly requests: number;
  readonly simulatedSeconds: number;
  readonly classes: readonly ClassSimFigures[];
  readonly meanPower: number;
  readonly meanPowerCi: number | null;
  /** g = Σ_c w_c·E[R_c] + w_pow·E[P], from the run's totals. */
  readonly averageCost: number;
  readonly averageCostCi: number | null;
  /** g of each batch-means group (for paired comparisons under common random numbers). */
  readonly groupCost: Float64Array;
}

/**
 * Simulates several classes sharing one accelerator (docs/model.md §10) in the one engine:
 * one server, per-class batching, policies[c] for class c (a joint rule: src/sim/joint's
 * jointPolicies). Class c's Poisson arrivals come from classSeed(seed, c), the service times
 * from the server's one stream, so every policy run with a seed sees the same arrivals (common
 * random numbers), and one class reproduces the single-server simulator's run for that seed.
 */
export function simulateClasses(p: ClassesParams, policies: readonly SimPolicy[], o: ClassesSimulateOptions = {}): ClassesSimulation {
  const C = p.classes.length;
  if (policies.length !== C) throw new ScenarioError('policies', `one per class: ${C} classes, ${policies.length} policies`);
  const requests = o.requests ?? SIM_DEFAULTS.requests;
  const seed = o.seed ?? SIM_DEFAULTS.seed;
  const ciBatches = o.ciBatches ?? SIM_DEFAULTS.ciBatches;
  const warmup = o.warmup ?? defaultWarmup(requests);
  const B = Math.max(...p.classes.map((c) => c.maxBatchSize));
  // Tables by size 1..B (the engine indexes them by the server's B); a class never uses sizes past its own B_c.
  const pad = (a: Float64Array): Float64Array => {
    const out = new Float64Array(B + 1);
    out.set(a.subarray(0, Math.min(a.length, B + 1)));
    return out;
  };
  const sys: EngineSystem = {
    servers: [
      {
        maxBatchSize: B,
        service: p.classes.map((c) => ({ meanService: pad(c.meanService), distribution: c.distribution, cv: c.cv })),
        busyPower: pad(p.classes[0].busyPower),
        classPower: p.classes.map((c) => pad(c.busyPower)),
        idlePower: p.idlePower,
      },
    ],
    mixed: false,
  };
  const arrivals = p.classes.map((c, i) => ArrivalSource.poisson(c.arrivalRate, classSeed(seed, i)));
  const out = runEngine(sys, [policies], arrivals, null, {
    requests,
    warmup,
    ciBatches,
    seed,
    maxQueued: SIM_LIMITS.maxQueued,
    overflow: (limit, now) => new LimitError('policy', `a class queue passed ${limit} waiting requests at t = ${now} s: the policy cannot keep up (unstable)`),
    signal: o.signal,
  });
  return summarizeClasses(p, out, policies.map((x) => x.name).join(' + '), seed);
}

function summarizeClasses(p: ClassesParams, out: EngineOutput, policy: string, seed: number): ClassesSimulation {
  const C = p.classes.length;
  const G = out.groups;
  const T = out.windowSeconds;
  const groupCost = new Float64Array(G);
  for (let g = 0; g < G; g++) {
    let s = p.powerWeight * out.groupPower[g];
    for (let c = 0; c < C; c++) s += p.classes[c].latencyWeight * (out.groupN[g * C + c] > 0 ? out.groupSum[g * C + c] / out.groupN[g * C + c] : 0);
    groupCost[g] = s;
  }
  const meanPower = (out.accEnergy[0] + p.idlePower * (T - out.accBusy[0])) / T;
  let averageCost = p.powerWeight * meanPower;
  const classes = p.classes.map((cl, c) => {
    const means: number[] = [];
    for (let g = 0; g < G; g++) if (out.groupN[g * C + c] > 0) means.push(out.groupSum[g * C + c] / out.groupN[g * C + c]);
    const mean = out.classSum[c] / out.classN[c];
    averageCost += cl.latencyWeight * mean;
    return { name: cl.name, requests: out.classN[c], meanResponseTime: mean, meanResponseCi: meanHalfWidth(means, means.length, CONFIDENCE_LEVEL) };
  });
  return {
    policy,
    seed,
    requests: out.measured,
    simulatedSeconds: T,
    classes,
    meanPower,
    meanPowerCi: meanHalfWidth(out.groupPower, G, CONFIDENCE_LEVEL),
    averageCost,
    averageCostCi: meanHalfWidth(groupCost, G, CONFIDENCE_LEVEL),
    groupCost,
  };
}

/** The paired gap g_A − g_B of two runs with the same seed and groups: mean of the group differences and its 95 % half-width. */
export function pairedGap(a: ClassesSimulation, b: ClassesSimulation): { gap: number; ci: number | null } {
  const G = Math.min(a.groupCost.length, b.groupCost.length);
  const d = new Float64Array(G);
  for (let g = 0; g < G; g++) d[g] = a.groupCost[g] - b.groupCost[g];
  return { gap: a.averageCost - b.averageCost, ci: meanHalfWidth(d, G, CONFIDENCE_LEVEL) };
}

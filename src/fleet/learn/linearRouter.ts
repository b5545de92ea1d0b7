/**
 * A learned router: a linear-softmax policy over accelerators. For an arriving request of
 * class c, accelerator a gets the score θ_c · φ(a) and is chosen with probability
 * softmax(scores)_a. φ(a) holds what a load balancer sees, in units of τ (the slowest full
 * batch): the running batch's remaining time, the queued work of the request's own class and
 * of the others, the newcomer's own work on that kind, whether the running batch is of its
 * class or another, and a one-hot of a (so it can learn to dedicate accelerators to classes).
 * Small enough that the gradient is written by hand (∇ log π = φ(a) − E_π[φ]).
 */
import { ScenarioError } from '../../model/errors.js';
import { Rng } from '../../sim/rng.js';
import type { FleetView, Router } from '../routers.js';
import { STREAM_ROUTER } from '../routers.js';
import type { FleetParams } from '../scenario.js';

/** Load features before the one-hot block. */
export const LOAD_FEATURES = 6;

/** What `batchwise train` writes and `--router learned` reads. */
export interface RouterWeights {
  readonly format: 'batchwise.linear-router.v1';
  readonly accelerators: number;
  readonly classes: number;
  /** θ[c] has LOAD_FEATURES + accelerators entries. */
  readonly theta: number[][];
  /** Time unit of the features, seconds. */
  readonly tau: number;
  /** Sample (training) or take the most likely accelerator (evaluation, default). */
  readonly greedy?: boolean;
}

export function featureCount(f: FleetParams): number {
  return LOAD_FEATURES + f.accelerators;
}

/** τ: the longest full-batch service time of any class on any kind. */
export function timeUnit(f: FleetParams): number {
  let tau = 0;
  for (const k of f.kinds) for (const p of k.pairs) tau = Math.max(tau, p.meanService[k.maxBatchSize]);
  return tau;
}

/** Writes φ(a) for every accelerator into out (row a at a·F). */
export function features(v: FleetView, c: number, classes: number, tau: number, out: Float64Array): void {
  const N = v.size;
  const F = LOAD_FEATURES + N;
  out.fill(0);
  for (let a = 0; a < N; a++) {
    const o = a * F;
    let other = 0;
    for (let k = 0; k < classes; k++) if (k !== c) other += v.waitingOf(a, k) * v.perItem(a, k);
    const busy = v.inService(a) > 0;
    const mine = v.serving(a, c);
    out[o] = v.remaining(a) / tau;
    out[o + 1] = (v.waitingOf(a, c) * v.perItem(a, c)) / tau;
    out[o + 2] = other / tau;
    out[o + 3] = v.perItem(a, c) / tau;
    out[o + 4] = busy && mine ? 1 : 0;
    out[o + 5] = busy && !mine ? 1 : 0;
    out[o + LOAD_FEATURES + a] = 1;
  }
}

/** π(·) = softmax(θ_c·φ(a)) into probs; returns nothing, numerically stable (max subtracted). */
export function softmax(theta: Float64Array, phi: Float64Array, N: number, probs: Float64Array): void {
  const F = theta.length;
  let max = -Infinity;
  for (let a = 0; a < N; a++) {
    let s = 0;
    for (let i = 0; i < F; i++) s += theta[i] * phi[a * F + i];
    probs[a] = s;
    if (s > max) max = s;
  }
  let z = 0;
  for (let a = 0; a < N; a++) {
    probs[a] = Math.exp(probs[a] - max);
    z += probs[a];
  }
  for (let a = 0; a < N; a++) probs[a] /= z;
}

/** An action drawn from probs[0..N) with rng, or (rng null) the most likely one (ties: the lowest). */
export function pickAction(probs: Float64Array, N: number, rng: Rng | null): number {
  let a = 0;
  if (rng !== null) {
    let u = rng.nextDouble();
    while (a < N - 1 && (u -= probs[a]) >= 0) a++;
  } else {
    for (let i = 1; i < N; i++) if (probs[i] > probs[a]) a = i;
  }
  return a;
}

export interface Decision {
  readonly cls: number;
  readonly action: number;
}

export class LinearRouter implements Router {
  readonly name = 'learned';
  private rng: Rng;
  private readonly phi: Float64Array;
  private readonly probs: Float64Array;
  /** When set, every decision's features and choice are handed over (training). */
  record: ((cls: number, phi: Float64Array, probs: Float64Array, action: number) => void) | null = null;

  constructor(
    private readonly f: FleetParams,
    /** θ[c], each of length featureCount(f). */
    readonly theta: Float64Array[],
    readonly tau: number,
    private readonly sample: boolean,
    private readonly seed: number,
  ) {
    this.rng = new Rng(seed, STREAM_ROUTER + 1);
    this.phi = new Float64Array(f.accelerators * featureCount(f));
    this.probs = new Float64Array(f.accelerators);
  }

  static fromWeights(f: FleetParams, w: RouterWeights, seed: number): LinearRouter {
    if (w.format !== 'batchwise.linear-router.v1') throw new ScenarioError('weights.format', `must be batchwise.linear-router.v1 (got ${JSON.stringify(w.format)})`);
    if (w.accelerators !== f.accelerators || w.classes !== f.classes.length) {
      throw new ScenarioError('weights', `were trained for ${w.accelerators} accelerators and ${w.classes} classes; this fleet has ${f.accelerators} and ${f.classes.length}`);
    }
    const F = featureCount(f);
    const theta = w.theta.map((row, c) => {
      if (!Array.isArray(row) || row.length !== F || !row.every(Number.isFinite)) throw new ScenarioError(`weights.theta[${c}]`, `must be ${F} finite numbers`);
      return Float64Array.from(row);
    });
    if (!(w.tau > 0)) throw new ScenarioError('weights.tau', `must be > 0 (got ${w.tau})`);
    return new LinearRouter(f, theta, w.tau, w.greedy === false, seed);
  }

  toWeights(): RouterWeights {
    return {
      format: 'batchwise.linear-router.v1',
      accelerators: this.f.accelerators,
      classes: this.f.classes.length,
      theta: this.theta.map((t) => Array.from(t)),
      tau: this.tau,
    };
  }

  route(c: number, v: FleetView): number {
    const N = v.size;
    features(v, c, this.f.classes.length, this.tau, this.phi);
    softmax(this.theta[c], this.phi, N, this.probs);
    const a = pickAction(this.probs, N, this.sample ? this.rng : null);
    this.record?.(c, this.phi, this.probs, a);
    return a;
  }

  reset(): void {
    this.rng = new Rng(this.seed, STREAM_ROUTER + 1);
  }
}

/**
 * Policy-gradient training of the linear-softmax router in the fleet simulator:
 * REINFORCE with a learned value baseline, or PPO (clipped surrogate, several epochs per
 * batch of experience). Seeded: the same seed and settings give the same weights.
 *
 * Each routing decision is one step; its reward is −weight_c·R/τ, the (weighted) response
 * time of the request it routed, known when that request's batch starts. This is the
 * per-request reward of the seed paper's setting; it does not charge a decision for the
 * delay it causes to later requests, which is one reason a myopic learner can trail a
 * planned segregation. The baseline is a ridge regression of the reward on the mean load
 * features, per class, fitted on the previous episode (so the advantage stays unbiased).
 */
import type { FleetParams } from '../scenario.js';
import { simulateFleet } from '../simulate.js';
import { featureCount, LinearRouter, timeUnit, type RouterWeights } from './linearRouter.js';
import { normalizeAdvantages, policyGradientUpdate, type Algo } from './policyGradient.js';
import { Adam } from './adam.js';
import { solveDense } from '../../model/dense.js';

export type { Algo };

export interface TrainOptions {
  readonly algo: Algo;
  /** Episodes (batches of experience), default 30. */
  readonly episodes?: number;
  /** Arrivals per episode, default 20 000. */
  readonly requestsPerEpisode?: number;
  readonly seed?: number;
  readonly learningRate?: number;
  /** PPO: epochs per batch and clip ε (defaults 4, 0.2). */
  readonly ppoEpochs?: number;
  readonly clip?: number;
  readonly onEpisode?: (episode: number, episodes: number, point: CurvePoint) => void;
  readonly signal?: AbortSignal;
}

export interface CurvePoint {
  readonly episode: number;
  /** Mean reward of the episode's decisions (−weighted response / τ). */
  readonly meanReward: number;
  /** Mean response time over all classes in the episode (sampling policy), seconds. */
  readonly meanResponseTime: number;
}

export interface TrainResult {
  readonly algo: Algo;
  readonly seed: number;
  readonly weights: RouterWeights;
  readonly curve: readonly CurvePoint[];
  /** Requests simulated in training (the learner's cost in experience). */
  readonly simulatedRequests: number;
  readonly gradientSteps: number;
  readonly seconds: number;
}

const BASE_FEATURES = 7;

export function trainRouter(f: FleetParams, o: TrainOptions): TrainResult {
  const t0 = performance.now();
  const episodes = o.episodes ?? 30;
  const R = o.requestsPerEpisode ?? 20_000;
  const seed = o.seed ?? 1;
  const lr = o.learningRate ?? 0.05;
  const C = f.classes.length;
  const N = f.accelerators;
  const F = featureCount(f);
  const tau = timeUnit(f);
  const flat = new Float64Array(C * F);
  const theta = f.classes.map((_, c) => flat.subarray(c * F, (c + 1) * F));
  const adam = new Adam(C * F, lr);
  const baseline = f.classes.map(() => new Float64Array(BASE_FEATURES));
  const cap = R + 4 * R; // arrivals per episode: measured + warm-up + those still waiting at the end
  const phis = new Float64Array(cap * N * F);
  const cls = new Int32Array(cap);
  const act = new Int32Array(cap);
  const oldProb = new Float64Array(cap);
  const reward = new Float64Array(cap);
  const curve: CurvePoint[] = [];
  let simulated = 0;
  let steps = 0;

  for (let ep = 0; ep < episodes; ep++) {
    const router = new LinearRouter(f, theta.map((t) => t.slice()), tau, true, seed * 1009 + ep);
    let n = 0;
    router.record = (c, phi, probs, a) => {
      if (n >= cap) return;
      phis.set(phi, n * N * F);
      cls[n] = c;
      act[n] = a;
      oldProb[n] = probs[a];
      reward[n] = NaN;
      n++;
    };
    const sim = simulateFleet(f, router, {
      requests: R,
      warmup: 0,
      ciBatches: 2,
      seed: seed * 7919 + ep,
      signal: o.signal,
      onServed: (tag, c, _a, r) => {
        if (tag < n) reward[tag] = (-f.classes[c].weight * r) / tau;
      },
    });
    simulated += sim.requests;

    // Advantages against last episode's baseline, then refit the baseline on this episode.
    const psi = new Float64Array(BASE_FEATURES);
    const adv = new Float64Array(n);
    const used: number[] = [];
    let sumR = 0;
    for (let t = 0; t < n; t++) {
      if (Number.isNaN(reward[t])) continue; // still waiting when the episode ended
      baseFeatures(phis, t, N, F, psi);
      let b = 0;
      for (let i = 0; i < BASE_FEATURES; i++) b += baseline[cls[t]][i] * psi[i];
      adv[t] = reward[t] - b;
      used.push(t);
      sumR += reward[t];
    }
    fitBaseline(phis, reward, cls, used, N, F, C, baseline);
    normalizeAdvantages(adv, used);
    steps += policyGradientUpdate(
      flat,
      F,
      { used, phi: (t) => phis.subarray(t * N * F, (t + 1) * N * F), rows: () => N, block: (t) => cls[t], act, oldProb, adv },
      adam,
      { algo: o.algo, epochs: o.ppoEpochs, clip: o.clip },
    );
    const point = { episode: ep + 1, meanReward: sumR / used.length, meanResponseTime: sim.meanResponseTime };
    curve.push(point);
    o.onEpisode?.(ep + 1, episodes, point);
  }
  const weights: RouterWeights = {
    format: 'batchwise.linear-router.v1',
    accelerators: N,
    classes: C,
    theta: theta.map((t) => Array.from(t)),
    tau,
  };
  return { algo: o.algo, seed, weights, curve, simulatedRequests: simulated, gradientSteps: steps, seconds: (performance.now() - t0) / 1e3 };
}

/** ψ = [1, mean over accelerators of the six load features]. */
function baseFeatures(phis: Float64Array, t: number, N: number, F: number, out: Float64Array): void {
  out.fill(0);
  out[0] = 1;
  for (let a = 0; a < N; a++) for (let i = 0; i < BASE_FEATURES - 1; i++) out[i + 1] += phis[t * N * F + a * F + i] / N;
}

/** Per class, ridge regression (λ = 1e-6) of the reward on ψ, by Gaussian elimination. */
function fitBaseline(phis: Float64Array, reward: Float64Array, cls: Int32Array, used: number[], N: number, F: number, C: number, out: Float64Array[]): void {
  const D = BASE_FEATURES;
  const psi = new Float64Array(D);
  for (let c = 0; c < C; c++) {
    const A = new Float64Array(D * D);
    const y = new Float64Array(D);
    let count = 0;
    for (const t of used) {
      if (cls[t] !== c) continue;
      count++;
      baseFeatures(phis, t, N, F, psi);
      for (let i = 0; i < D; i++) {
        y[i] += psi[i] * reward[t];
        for (let j = 0; j < D; j++) A[i * D + j] += psi[i] * psi[j];
      }
    }
    if (count === 0) continue;
    for (let i = 0; i < D; i++) A[i * D + i] += 1e-6 * count;
    out[c].set(solveDense(A, y, D));
  }
}

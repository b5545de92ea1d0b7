/**
 * A learned batching policy on one accelerator, for comparison with the exact optimum.
 *
 * The learner's policy is a softmax over control limits M = 1..B (wait below M requests,
 * serve min(q, B) from M on): the family the seed paper's agents end up in and the shape of
 * most optimal policies (docs/model.md §5). Each step samples K limits, simulates each for a short
 * run in the single-server simulator, and takes the reward −(simulated average cost)/g₀
 * (g₀: the greedy policy's cost, a scale). REINFORCE subtracts a running-mean value baseline;
 * PPO reuses each batch for several clipped epochs. The returned policy is the most likely
 * limit. Because it searches a subset of the policies the SMDP optimises over, its exact cost
 * can never be below the optimum g*; a simulation of it can only fall below g* by noise.
 */
import type { ModelParams } from '../../model/scenario.js';
import { evaluatePolicy } from '../../policy/evaluate.js';
import { controlLimitPolicy, greedyPolicy } from '../../policy/policy.js';
import { Rng } from '../../sim/rng.js';
import { simulate } from '../../sim/simulate.js';
import { Adam } from './adam.js';
import type { Algo } from './trainRouter.js';

export interface BatchingTrainOptions {
  readonly algo: Algo;
  readonly iterations?: number;
  /** Control limits sampled per iteration (default 8). */
  readonly samples?: number;
  /** Requests per simulated run (default 20 000). */
  readonly requests?: number;
  readonly seed?: number;
  readonly learningRate?: number;
  readonly onIteration?: (i: number, total: number, meanCost: number) => void;
}

export interface BatchingTrainResult {
  readonly algo: Algo;
  readonly controlLimit: number;
  /** Probabilities of M = 1..B at the end (index M − 1). */
  readonly probabilities: number[];
  /** Mean simulated cost of the sampled limits per iteration. */
  readonly curve: number[];
  readonly simulatedRequests: number;
  readonly seconds: number;
}

export function trainBatching(p: ModelParams, o: BatchingTrainOptions): BatchingTrainResult {
  const t0 = performance.now();
  const B = p.maxBatchSize;
  const iters = o.iterations ?? 40;
  const K = o.samples ?? 8;
  const requests = o.requests ?? 20_000;
  const seed = o.seed ?? 1;
  // Every control limit serves min(q, B) for long queues, so all are stable (validation
  // checked λ·l(B) < B); the mask stays for action sets that would exclude some.
  const stable = new Array<boolean>(B).fill(true);
  const g0 = evaluatePolicy(p, greedyPolicy(B)).averageCost;
  const logits = new Float64Array(B);
  for (let i = 0; i < B; i++) if (!stable[i]) logits[i] = -Infinity;
  const adam = new Adam(B, o.learningRate ?? 0.1);
  const rng = new Rng(seed, 0x4242);
  let baseline = NaN;
  const curve: number[] = [];
  let simulated = 0;
  const probs = (out: Float64Array): void => {
    let max = -Infinity;
    for (let i = 0; i < B; i++) max = Math.max(max, logits[i]);
    let z = 0;
    for (let i = 0; i < B; i++) z += out[i] = Number.isFinite(logits[i]) ? Math.exp(logits[i] - max) : 0;
    for (let i = 0; i < B; i++) out[i] /= z;
  };
  const pi = new Float64Array(B);
  for (let it = 0; it < iters; it++) {
    probs(pi);
    const old = pi.slice();
    const picks: number[] = [];
    const rewards: number[] = [];
    for (let k = 0; k < K; k++) {
      let u = rng.nextDouble();
      let m = 0;
      while (m < B - 1 && (u -= pi[m]) >= 0) m++;
      if (!stable[m]) m = stable.indexOf(true);
      const r = simulate(p, controlLimitPolicy(m + 1, B), { requests, seed: seed * 100_003 + it * K + k, ciBatches: 2 });
      simulated += r.requests;
      picks.push(m);
      rewards.push(-r.averageCost / g0);
    }
    const mean = rewards.reduce((a, b) => a + b, 0) / K;
    curve.push(-mean * g0);
    if (Number.isNaN(baseline)) baseline = mean;
    const epochs = o.algo === 'ppo' ? 4 : 1;
    for (let e = 0; e < epochs; e++) {
      probs(pi);
      const grad = new Float64Array(B);
      for (let k = 0; k < K; k++) {
        let w = (rewards[k] - baseline) * 10;
        const m = picks[k];
        if (o.algo === 'ppo') {
          const ratio = pi[m] / old[m];
          if ((w > 0 && ratio > 1.2) || (w < 0 && ratio < 0.8)) continue;
          w *= ratio;
        }
        for (let i = 0; i < B; i++) if (stable[i]) grad[i] += (w * ((i === m ? 1 : 0) - pi[i])) / K;
      }
      const finite = logits.map((x) => (Number.isFinite(x) ? x : 0));
      adam.ascend(finite, grad);
      for (let i = 0; i < B; i++) if (stable[i]) logits[i] = finite[i];
    }
    baseline = 0.8 * baseline + 0.2 * mean;
    o.onIteration?.(it + 1, iters, -mean * g0);
  }
  probs(pi);
  let best = 0;
  for (let i = 1; i < B; i++) if (pi[i] > pi[best]) best = i;
  return { algo: o.algo, controlLimit: best + 1, probabilities: Array.from(pi), curve, simulatedRequests: simulated, seconds: (performance.now() - t0) / 1e3 };
}

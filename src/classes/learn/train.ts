/**
 * Policy-gradient training of the joint batching agent (agent.ts) in the one simulator
 * (src/sim/joint/simulate.ts): REINFORCE with a learned value baseline, or PPO, by the update the
 * fleet's router uses (src/fleet/learn/policyGradient.ts). Seeded: the same seed and settings
 * give the same θ.
 *
 * Each decision is a step; its cost is the exact cost of the interval until the next decision
 * (agent.ts). The objective is an average cost, so the return of step k is the discounted sum
 * of differential costs Σ_j γ^(j−k)·(cost_j − ĝ·span_j), ĝ the episode's cost rate; the
 * advantage is minus that return less a ridge regression of it on the state features, fitted on
 * the previous episode (so it stays unbiased), normalised per episode.
 */
import type { ClassesParams } from '../../model/classes/params.js';
import { solveDense } from '../../model/dense.js';
import { Adam } from '../../fleet/learn/adam.js';
import { normalizeAdvantages, policyGradientUpdate, type Algo } from '../../fleet/learn/policyGradient.js';
import { jointPolicies } from '../../sim/joint/chooser.js';
import { simulateClasses } from '../../sim/joint/simulate.js';
import { LinearJointAgent, stateFeatures, type Step } from './agent.js';

export interface JointTrainOptions {
  readonly algo: Algo;
  /** Episodes (default 40). */
  readonly episodes?: number;
  /** Requests measured per episode (default 20 000). */
  readonly requestsPerEpisode?: number;
  readonly seed?: number;
  readonly learningRate?: number;
  /** Discount per decision of the differential return (default 0.98). */
  readonly discount?: number;
  readonly ppoEpochs?: number;
  readonly clip?: number;
  readonly onEpisode?: (episode: number, episodes: number, costRate: number) => void;
}

export interface JointTrainResult {
  readonly algo: Algo;
  readonly seed: number;
  readonly theta: Float64Array;
  /** The sampling policy's cost rate per episode. */
  readonly curve: number[];
  readonly simulatedRequests: number;
  readonly gradientSteps: number;
}

export function trainJointAgent(p: ClassesParams, o: JointTrainOptions): JointTrainResult {
  const C = p.classes.length;
  const D = stateFeatures(C);
  const F = (C + 1) * D;
  const episodes = o.episodes ?? 40;
  const R = o.requestsPerEpisode ?? 20_000;
  const seed = o.seed ?? 1;
  const gamma = o.discount ?? 0.98;
  const theta = new Float64Array(F);
  const adam = new Adam(F, o.learningRate ?? 0.05);
  let baseline: Float64Array = new Float64Array(D);
  const B = p.classes.map((c) => c.maxBatchSize);
  const curve: number[] = [];
  let simulated = 0;
  let steps = 0;
  for (let ep = 0; ep < episodes; ep++) {
    const agent = new LinearJointAgent(p, theta.slice(), true, seed * 1009 + ep);
    const rec: Step[] = [];
    agent.record = rec;
    const sim = simulateClasses(p, jointPolicies(agent, B), { requests: R, warmup: 0, ciBatches: 2, seed: seed * 7919 + ep });
    simulated += sim.requests;
    const n = rec.length - 1; // the last step's interval never closed
    let cost = 0;
    let span = 0;
    for (let t = 0; t < n; t++) {
      cost += rec[t].cost;
      span += rec[t].span;
    }
    const g = cost / span;
    curve.push(g);
    // Differential returns, backwards; then the advantage against last episode's baseline.
    const ret = new Float64Array(n);
    const psi = new Float64Array(n * D);
    let G = 0;
    for (let t = n - 1; t >= 0; t--) {
      G = (rec[t].cost - g * rec[t].span) / g + gamma * G;
      ret[t] = G;
      const s = rec[t];
      psi.set(s.phi.subarray(s.actions[0] * D, (s.actions[0] + 1) * D), t * D);
    }
    const adv = new Float64Array(n);
    const used: number[] = [];
    for (let t = 0; t < n; t++) {
      let v = 0;
      for (let i = 0; i < D; i++) v += baseline[i] * psi[t * D + i];
      adv[t] = -(ret[t] - v);
      used.push(t);
    }
    baseline = fitBaseline(psi, ret, n, D);
    normalizeAdvantages(adv, used);
    const act = Int32Array.from(rec, (s) => s.act);
    const oldProb = Float64Array.from(rec, (s) => s.prob);
    steps += policyGradientUpdate(
      theta,
      F,
      { used, phi: (t) => rec[t].phi, rows: (t) => rec[t].actions.length, block: () => 0, act, oldProb, adv },
      adam,
      { algo: o.algo, epochs: o.ppoEpochs, clip: o.clip },
    );
    o.onEpisode?.(ep + 1, episodes, g);
  }
  return { algo: o.algo, seed, theta, curve, simulatedRequests: simulated, gradientSteps: steps };
}

/** Ridge regression (λ = 1e-6·n) of y on the rows of X (n × D). */
function fitBaseline(X: Float64Array, y: Float64Array, n: number, D: number): Float64Array {
  const A = new Float64Array(D * D);
  const b = new Float64Array(D);
  for (let t = 0; t < n; t++) {
    for (let i = 0; i < D; i++) {
      const xi = X[t * D + i];
      b[i] += xi * y[t];
      for (let j = 0; j < D; j++) A[i * D + j] += xi * X[t * D + j];
    }
  }
  for (let i = 0; i < D; i++) A[i * D + i] += 1e-6 * n + 1e-12;
  return solveDense(A, b, D);
}

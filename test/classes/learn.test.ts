import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateClassesScenario } from '../../src/model/classes/validate.js';
import { solveClassesScenario } from '../../src/solve/classes/solveClasses.js';
import { LinearJointAgent, stateFeatures, type Step } from '../../src/classes/learn/agent.js';
import { trainJointAgent } from '../../src/classes/learn/train.js';
import { jointPolicies } from '../../src/sim/joint/chooser.js';
import { OptimalChooser } from '../../src/sim/joint/rules.js';
import { pairedGap, simulateClasses } from '../../src/sim/joint/simulate.js';
import { studentTQuantile } from '../../src/sim/stats.js';

/** The learned joint batching agents of issue 19 (REINFORCE, PPO), trained in the simulator. */

const raw = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'two-classes.json'), 'utf8')) as unknown;
const { params } = validateClassesScenario(raw);
const B = params.classes.map((c) => c.maxBatchSize);
const F = (params.classes.length + 1) * stateFeatures(params.classes.length);

describe('the learned joint agent', () => {
  it('measures each decision’s cost exactly: the intervals add up to the simulated g (Little’s law)', () => {
    const agent = new LinearJointAgent(params, new Float64Array(F), true, 3);
    const rec: Step[] = [];
    agent.record = rec;
    const sim = simulateClasses(params, jointPolicies(agent, B), { requests: 300_000, warmup: 0, seed: 2 });
    let cost = 0;
    let span = 0;
    for (const s of rec.slice(0, -1)) {
      cost += s.cost;
      span += s.span;
    }
    // Time average of the cost rate (Σ (w_c/λ_c)·∫N_c + w_pow·energy, over time) against the run's
    // request averages (Σ w_c·R̄_c + w_pow·P̄): the same figure by Little's law, up to the arrival
    // counts n_c/T against λ_c (about 0.4 % standard deviation for the large class here).
    expect(Math.abs(cost / span - sim.averageCost)).toBeLessThan(0.01 * sim.averageCost);
    expect(rec.every((s, i) => i === rec.length - 1 || (s.cost >= 0 && s.span >= 0))).toBe(true);
  });

  it('trains reproducibly for a seed, for both algorithms', () => {
    for (const algo of ['reinforce', 'ppo'] as const) {
      const o = { algo, episodes: 3, requestsPerEpisode: 3000 };
      const a = trainJointAgent(params, { ...o, seed: 5 });
      const b = trainJointAgent(params, { ...o, seed: 5 });
      const c = trainJointAgent(params, { ...o, seed: 6 });
      expect(Array.from(a.theta)).toEqual(Array.from(b.theta));
      expect(a.curve).toEqual(b.curve);
      expect(Array.from(c.theta)).not.toEqual(Array.from(a.theta));
    }
  });

  it('learns (its cost falls) and is no better than the exact optimum beyond the paired interval', async () => {
    const exact = await solveClassesScenario(raw);
    const run = { requests: 300_000, seed: 4, ciBatches: 30 };
    const opt = simulateClasses(params, jointPolicies(new OptimalChooser(exact.policy), B), run);
    for (const algo of ['reinforce', 'ppo'] as const) {
      const t = trainJointAgent(params, { algo, episodes: 10, requestsPerEpisode: 10_000, seed: 1 });
      expect(t.curve[t.curve.length - 1]).toBeLessThan(t.curve[0]);
      const learned = simulateClasses(params, jointPolicies(new LinearJointAgent(params, t.theta, false, 0), B), run);
      const { gap, ci } = pairedGap(learned, opt);
      const wide = (ci! * studentTQuantile(0.9995, 29)) / studentTQuantile(0.975, 29);
      expect(gap).toBeGreaterThan(-wide);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { RandomRouter } from '../../src/fleet/routers.js';
import { validateFleet } from '../../src/fleet/scenario.js';
import { simulateFleet } from '../../src/fleet/simulate.js';
import { LinearRouter } from '../../src/fleet/learn/linearRouter.js';
import { trainBatching } from '../../src/fleet/learn/trainBatching.js';
import { trainRouter } from '../../src/fleet/learn/trainRouter.js';
import { validateScenario } from '../../src/model/validate.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { controlLimitPolicy } from '../../src/policy/policy.js';
import { simulate } from '../../src/sim/simulate.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { twoClassFleet, V100 } from './helpers.js';

describe('learned router (policy gradient)', () => {
  const f = validateFleet(twoClassFleet(2, 1));
  const small = { episodes: 3, requestsPerEpisode: 2000 };

  it('is reproducible by seed, for both algorithms', () => {
    for (const algo of ['reinforce', 'ppo'] as const) {
      const a = trainRouter(f, { algo, ...small, seed: 3 });
      const b = trainRouter(f, { algo, ...small, seed: 3 });
      const c = trainRouter(f, { algo, ...small, seed: 4 });
      expect(b.weights).toEqual(a.weights);
      expect(b.curve).toEqual(a.curve);
      expect(c.weights).not.toEqual(a.weights);
    }
  });

  it('learns to beat the random router it starts from (θ = 0 is uniform)', () => {
    const r = trainRouter(f, { algo: 'ppo', episodes: 8, requestsPerEpisode: 5000, seed: 1 });
    const learned = simulateFleet(f, LinearRouter.fromWeights(f, r.weights, 1), { requests: 50_000, seed: 21 });
    const random = simulateFleet(f, new RandomRouter(2, 1), { requests: 50_000, seed: 21 });
    expect(learned.meanResponseTime).toBeLessThan(random.meanResponseTime);
  });
});

describe('learned batching never beats the exact SMDP optimum', () => {
  it('exactly (its control limit is one of the policies the solver optimises over) and in simulation, beyond the CI', async () => {
    const s = validateScenario(V100);
    const opt = await solveScenario(s);
    for (const algo of ['reinforce', 'ppo'] as const) {
      const r = trainBatching(s.params, { algo, iterations: 8, samples: 4, requests: 5000, seed: 2 });
      const policy = controlLimitPolicy(r.controlLimit, 32);
      expect(evaluatePolicy(s.params, policy).averageCost).toBeGreaterThanOrEqual(opt.averageCostLower * (1 - 1e-12));
      const sim = simulate(s.params, policy, { requests: 200_000, seed: 8 });
      expect(sim.averageCost + (sim.confidence.averageCost ?? 0)).toBeGreaterThanOrEqual(opt.averageCost);
      // Reproducible by seed.
      expect(trainBatching(s.params, { algo, iterations: 8, samples: 4, requests: 5000, seed: 2 })).toMatchObject({ controlLimit: r.controlLimit, curve: r.curve });
    }
  });
});

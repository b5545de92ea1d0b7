import { describe, expect, it } from 'vitest';
import { buildArrivalTable } from '../../src/model/arrivalTable.js';
import { validateScenario } from '../../src/model/validate.js';
import { planScenario } from '../../src/plan/constrained.js';
import { buildMix, commonRecurrentState, cycleTime, differingStates } from '../../src/plan/mix.js';
import { evaluateMix } from '../../src/plan/mixChain.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { actionAt, controlLimitPolicy, type Policy } from '../../src/policy/policy.js';
import { specScenario } from '../helpers/scenarios.js';
import { densePerDecisionMix, denseSwitchingMix, specSystem } from './denseMix.js';

const params = validateScenario(specScenario(1500, 1e-4)).params;
const pmfs = buildArrivalTable(params);
const rel = (a: number, b: number): number => Math.abs(a - b) / Math.abs(b);
const act = (p: Policy) => (s: number, j: number) => actionAt(p, s, j);

describe('the single-state mix of a latency-target plan (λ = 1500, target 5 ms)', () => {
  it('meets the target exactly, and an independent dense evaluation agrees', async () => {
    const plan = await planScenario(specScenario(1500, 1e-4), { kind: 'latency', seconds: 5e-3 });
    const m = plan.mix!;
    expect(m.kind).toBe('single-state');
    expect(rel(m.figures.meanResponseTime, 5e-3)).toBeLessThan(1e-12);
    const first: Policy = { actions: Int32Array.from(m.first.policy.actions), tailBatch: 32 };
    const second: Policy = { actions: Int32Array.from(m.second.policy.actions), tailBatch: 32 };
    expect(differingStates(first, second)).toEqual([m.state]);
    const dense = denseSwitchingMix(specSystem(1500), act(first), act(second), m.state, m.probability);
    expect(rel(dense.meanResponseTime, 5e-3)).toBeLessThan(1e-9);
    expect(rel(dense.meanPower, m.figures.meanPower)).toBeLessThan(1e-9);
    // On the straight segment, at the time share θ (not at the coin's probability q).
    expect(rel(m.figures.meanPower, m.timeShare * m.first.meanPower + (1 - m.timeShare) * m.second.meanPower)).toBeLessThan(1e-12);
    expect(Math.abs(m.probability - m.timeShare)).toBeGreaterThan(1e-3);
  });
});

describe('switching between policies that differ in many states (renewal–reward)', () => {
  const cl3 = controlLimitPolicy(3, 32);
  const cl8 = controlLimitPolicy(8, 32);
  const e3 = { policy: cl3, ev: evaluatePolicy(params, cl3, { table: pmfs }) };
  const e8 = { policy: cl8, ev: evaluatePolicy(params, cl8, { table: pmfs }) };

  it('lands on the segment at the time share θ; the coin probability is q = θ·Y2/(θ·Y2 + (1−θ)·Y1)', () => {
    expect(differingStates(cl3, cl8)).toEqual([3, 4, 5, 6, 7]);
    const r = commonRecurrentState(params, e3, e8);
    expect(r).toBeGreaterThanOrEqual(0);
    for (const theta of [0.1, 0.5, 0.83]) {
      const m = buildMix(params, e3, e8, r, theta, pmfs);
      expect(m.kind).toBe('regenerative');
      const y1 = cycleTime(params, e3, r);
      const y2 = cycleTime(params, e8, r);
      expect(rel(m.probability, (theta * y2) / (theta * y2 + (1 - theta) * y1))).toBeLessThan(1e-12);
      const R = theta * e3.ev.meanResponseTime + (1 - theta) * e8.ev.meanResponseTime;
      const P = theta * e3.ev.meanPower + (1 - theta) * e8.ev.meanPower;
      expect(rel(m.figures.meanResponseTime, R)).toBeLessThan(1e-10);
      expect(rel(m.figures.meanPower, P)).toBeLessThan(1e-10);
      const dense = denseSwitchingMix(specSystem(1500), act(cl3), act(cl8), r, m.probability);
      expect(rel(dense.meanResponseTime, R)).toBeLessThan(1e-9);
      expect(rel(dense.meanPower, P)).toBeLessThan(1e-9);
      // The chain's own time share under the first policy is θ as well.
      const chain = evaluateMix(params, cl3, cl8, r, m.probability, pmfs);
      expect(Math.abs(chain.modeShare[0] - theta)).toBeLessThan(1e-10);
    }
  });

  it('whereas a fresh coin at every decision leaves the segment', () => {
    const theta = 0.5;
    const dense = densePerDecisionMix(specSystem(1500), act(cl3), act(cl8), theta);
    // Its point is not on the line through the two policies' points, whatever the share.
    const slope = (e8.ev.meanPower - e3.ev.meanPower) / (e8.ev.meanResponseTime - e3.ev.meanResponseTime);
    const onLine = e3.ev.meanPower + slope * (dense.meanResponseTime - e3.ev.meanResponseTime);
    expect(rel(dense.meanPower, onLine)).toBeGreaterThan(1e-3);
  });
});

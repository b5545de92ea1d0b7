import { describe, expect, it } from 'vitest';
import { buildPmfTable, compileModel } from '../../src/model/compile.js';
import { compileMmppModel } from '../../src/model/mmpp/compile.js';
import { poissonAsMmpp } from '../../src/model/mmpp/process.js';
import { buildMmppPmfTable } from '../../src/model/mmpp/table.js';
import type { Scenario } from '../../src/model/scenario.js';
import { validateScenario } from '../../src/model/validate.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { bellmanStep } from '../../src/policy/greedy.js';
import { evaluateMmppPolicy } from '../../src/policy/mmpp/evaluate.js';
import { mmppBellmanStep } from '../../src/policy/mmpp/greedy.js';
import { evaluateOnMmppModel } from '../../src/policy/mmpp/modelChain.js';
import { evaluateOnModel } from '../../src/policy/modelChain.js';
import { controlLimitPolicy } from '../../src/policy/policy.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { SPEC_CASES, specCaseName, specCaseScenario } from '../helpers/specTable.js';

/** The same scenario with its Poisson arrivals given as a one-phase MMPP (spec §7, M = 1). */
function asOnePhase(s: Scenario): Scenario {
  return { ...s, arrivalRate: 0, arrivalProcess: { mmpp: { rates: [s.arrivalRate], generator: [0] } } };
}

const relative = (a: number, b: number): number => Math.abs(a - b) / Math.abs(b);

describe('M = 1: the (s, j) model is the Poisson model of spec §2', () => {
  const c = SPEC_CASES.find((x) => x.distribution === 'GAMMA' && x.cv === 0.7)!;
  const { params } = validateScenario(specCaseScenario(c));
  const S = 150;
  const poisson = compileModel(params, S, buildPmfTable(params));
  const one = compileMmppModel(params, poissonAsMmpp(params.arrivalRate), S, buildMmppPmfTable(params, poissonAsMmpp(params.arrivalRate)));

  it('compiles to the same step, costs, sojourns and pmfs', () => {
    expect(one.tau).toBe(poisson.tau);
    expect(one.costSlope).toBe(poisson.costSlope);
    expect(one.waitKappa).toBe(poisson.kappa[0]);
    expect(one.waitSojourn[0]).toBe(poisson.sojourn[0]);
    for (let b = 1; b <= params.maxBatchSize; b++) {
      expect(relative(one.kappa[b], poisson.kappa[b])).toBeLessThan(1e-15);
      expect(one.sojourn[b]).toBe(poisson.sojourn[b]);
      // The MMPP cut may fold a boundary atom (mass < 1e-15) one step inwards; nothing else moves.
      const lo = Math.min(one.pmfOffset[b], poisson.pmfOffset[b]);
      const hi = Math.max(one.pmfOffset[b] + one.pmfLength[b], poisson.pmfOffset[b] + poisson.pmfLength[b]);
      for (let k = lo; k < hi; k++) {
        const at = (o: number, st: number, len: number, pmf: Float64Array): number => (k - o >= 0 && k - o < len ? pmf[st + k - o] : 0);
        const x = at(one.pmfOffset[b], one.pmfStart[b], one.pmfLength[b], one.pmf);
        const y = at(poisson.pmfOffset[b], poisson.pmfStart[b], poisson.pmfLength[b], poisson.pmf);
        expect(Math.abs(x - y)).toBeLessThan(2e-15);
      }
    }
  });

  it('gives the same Bellman step and the same exact evaluation on the truncated model', () => {
    const policy = controlLimitPolicy(6, params.maxBatchSize);
    const table = new Int32Array(S + 1);
    for (let s = 6; s <= S; s++) table[s] = Math.min(s, params.maxBatchSize);
    expect(policy.actions.length).toBe(6);
    const a = evaluateOnModel(poisson, table);
    const b = evaluateOnMmppModel(one, table);
    expect(relative(b.gain, a.gain)).toBeLessThan(1e-12);
    for (let s = 1; s <= S; s++) expect(relative(b.values[s], a.values[s])).toBeLessThan(1e-10);
    const h = a.values.map((v) => v / poisson.tau);
    const gapA = new Float64Array(S + 1);
    const gapB = new Float64Array(S + 1);
    const polA = new Int32Array(S + 1);
    const polB = new Int32Array(S + 1);
    bellmanStep(poisson, h, gapA, polA);
    mmppBellmanStep(one, h, gapB, polB);
    expect(Array.from(polB)).toEqual(Array.from(polA));
    for (let s = 0; s <= S; s++) expect(Math.abs(gapB[s] - gapA[s])).toBeLessThan(1e-12 * Math.abs(a.gain) + 1e-12 * Math.abs(h[s]) * 1e-3);
  });

  it('evaluates a policy past S exactly as §5 does', () => {
    const policy = controlLimitPolicy(6, params.maxBatchSize);
    const a = evaluatePolicy(params, policy);
    const b = evaluateMmppPolicy(params, poissonAsMmpp(params.arrivalRate), { phases: 1, actions: policy.actions, tailBatch: policy.tailBatch });
    expect(relative(b.averageCost, a.averageCost)).toBeLessThan(1e-12);
    expect(relative(b.meanResponseTime, a.meanResponseTime)).toBeLessThan(1e-12);
    expect(relative(b.meanPower, a.meanPower)).toBeLessThan(1e-12);
    expect(relative(b.throughput, a.throughput)).toBeLessThan(1e-12);
    expect(relative(b.meanBatchSize, a.meanBatchSize)).toBeLessThan(1e-12);
  });
});

describe('M = 1 through solveScenario equals the Poisson solve (spec §6 cases)', () => {
  for (const c of SPEC_CASES.filter((_, i) => i === 1 || i === 3 || i === 4)) {
    it(specCaseName(c), async () => {
      const a = await solveScenario(specCaseScenario(c));
      const b = await solveScenario(asOnePhase(specCaseScenario(c)));
      expect(relative(b.averageCost, a.averageCost)).toBeLessThan(1e-12);
      expect(relative(b.averageCost, c.g)).toBeLessThan(1e-9);
      expect(relative(b.averageCostLower, a.averageCostLower)).toBeLessThan(1e-10);
      expect(relative(b.averageCostUpper, a.averageCostUpper)).toBeLessThan(1e-10);
      expect(relative(b.meanResponseTime, a.meanResponseTime)).toBeLessThan(1e-12);
      expect(relative(b.meanPower, a.meanPower)).toBeLessThan(1e-12);
      // Same actions wherever both tables are defined (each path chooses its own S).
      const n = Math.min(a.policy.actions.length, b.policy.actions.length);
      expect(b.policy.actions.slice(0, n)).toEqual(a.policy.actions.slice(0, n));
      expect(b.policy.controlLimit).toBe(c.controlLimit);
      expect(b.policy.phases![0].controlLimit).toBe(c.controlLimit);
      expect(b.policy.phases![0].actions).toEqual(b.policy.actions);
    });
  }
});

import { describe, expect, it } from 'vitest';
import { windowCounts } from '../../src/fit/counts.js';
import { expmMetzler } from '../../src/fit/expm.js';
import { fitTwoPhaseMmpp } from '../../src/fit/fitTrace.js';
import { idcTwoPhase, mmppCountMoments } from '../../src/fit/moments.js';
import { cexpm, cmat } from './reference.js';
import { sampleMmpp } from './sampler.js';

/**
 * Stated tolerances of the trace fit, for traces of ~270,000 arrivals (300 s) whose bursts
 * last tens of milliseconds: phase rates within 10 %, switching rates within 25 %, the phase
 * probabilities within 0.05. (Seen: rates within 1.5 %, switching rates within 8 %.)
 */
const RATE_TOL = 0.1;
const SWITCH_TOL = 0.25;

function recovered(rates: [number, number], Q: [[number, number], [number, number]], seed: number) {
  const trace = sampleMmpp(rates, Q, 300, seed);
  const fit = fitTwoPhaseMmpp(trace);
  return { fit, trace };
}

describe('two-phase MMPP fit recovers a known process from its trace', () => {
  // Base 500 /s, bursts of 2,500 /s lasting 50 ms, every 200 ms: π_burst = 0.2.
  for (const seed of [1, 2, 3]) {
    it(`rare strong bursts, seed ${seed}`, () => {
      const { fit } = recovered([500, 2500], [[-5, 5], [20, -20]], seed);
      expect(fit.report.phases).toBe(2);
      const [base, burst] = fit.rates;
      expect(Math.abs(base - 500) / 500).toBeLessThan(RATE_TOL);
      expect(Math.abs(burst - 2500) / 2500).toBeLessThan(RATE_TOL);
      expect(Math.abs(fit.generator[1] - 5) / 5).toBeLessThan(SWITCH_TOL);
      expect(Math.abs(fit.generator[2] - 20) / 20).toBeLessThan(SWITCH_TOL);
      expect(fit.generator[0]).toBe(-fit.generator[1]);
      expect(fit.generator[3]).toBe(-fit.generator[2]);
      // Quality against the trace: the IDC curve within its sampling noise.
      expect(fit.report.idcRmsZ).toBeLessThan(2);
      expect(fit.report.thirdRmsZ).toBeLessThan(2);
      expect(Math.abs(fit.report.meanRateFit - fit.report.meanRateTrace) / fit.report.meanRateTrace).toBeLessThan(1e-12);
    });
  }

  it('frequent weak lulls (the asymmetric case the third moment decides)', () => {
    // High phase 3,000 /s for 200 ms, lulls of 600 /s for 50 ms: π_high = 0.8.
    const { fit } = recovered([600, 3000], [[-20, 20], [5, -5]], 4);
    const [base, burst] = fit.rates;
    expect(Math.abs(base - 600) / 600).toBeLessThan(RATE_TOL);
    expect(Math.abs(burst - 3000) / 3000).toBeLessThan(RATE_TOL);
    const pBurst = fit.generator[1] / (fit.generator[1] + fit.generator[2]);
    expect(Math.abs(pBurst - 0.8)).toBeLessThan(0.05);
  });

  it('a Poisson trace is fitted as one phase', () => {
    const trace = sampleMmpp([900], [[0]], 300, 5);
    const fit = fitTwoPhaseMmpp(trace);
    expect(fit.report.phases).toBe(1);
    expect(fit.generator).toEqual([0]);
    expect(Math.abs(fit.rates[0] - 900) / 900).toBeLessThan(0.01);
  });

  it('reports, per time scale, the trace IDC against the fitted one', () => {
    const { fit, trace } = recovered([500, 2500], [[-5, 5], [20, -20]], 1);
    const s = fit.report.scales;
    expect(s.length).toBe(14);
    expect(s[0].seconds).toBeCloseTo(10 / fit.report.meanRateTrace, 12);
    for (const row of s) {
      const w = windowCounts(trace, row.seconds);
      expect(row.idcTrace).toBeCloseTo(w.variance / w.mean, 12);
      expect(row.windows).toBeGreaterThanOrEqual(50);
    }
    // The dispersion grows with the time scale towards 1 + c ≈ 58 (IDC ≈ 8 at the first scale, 11 ms).
    expect(s[s.length - 1].idcTrace).toBeGreaterThan(3 * s[0].idcTrace);
    expect(s[s.length - 1].idcFit).toBeGreaterThan(50);
  });
});

describe('count moments used by the fit', () => {
  it('two-phase IDC from the block exponential equals the closed form', () => {
    const rates = [500, 2500];
    const Q = [-5, 5, 20, -20];
    const pi = [0.8, 0.2];
    const lambda = 900;
    const rho = 25;
    const c = (2 * 2000 ** 2 * 5 * 20) / (rho ** 3 * lambda);
    for (const t of [0.001, 0.05, 1, 30]) {
      const m = mmppCountMoments(rates, Q, pi, t);
      expect(Math.abs(m.mean - lambda * t) / (lambda * t)).toBeLessThan(1e-10);
      // Var = f2 + f1 − f1² cancels ~log10(f1/IDC) digits at long scales (27,000 arrivals at t = 30 s).
      expect(Math.abs(m.variance / m.mean - idcTwoPhase(c, rho, t)) / idcTwoPhase(c, rho, t)).toBeLessThan(1e-7);
    }
  });

  it('Poisson counts: variance and third central moment both equal the mean', () => {
    const m = mmppCountMoments([700], [0], [1], 3);
    expect(m.mean).toBeCloseTo(2100, 9);
    expect(Math.abs(m.variance - 2100) / 2100).toBeLessThan(1e-12);
    expect(Math.abs(m.third - 2100) / 2100).toBeLessThan(1e-7);
  });

  it('the Metzler exponential matches a complex Taylor reference', () => {
    const G = [-3, 2, 1, 0, 0.5, -4, 0, 3.5, 0, 1, -1, 0, 2, 0, 0, -2];
    const ours = expmMetzler(G, 4, 7);
    const a = cmat(4);
    G.forEach((v, i) => (a.re[i] = v * 7));
    const ref = cexpm(a);
    for (let i = 0; i < 16; i++) expect(Math.abs(ours[i] - ref.re[i])).toBeLessThan(1e-13);
  });
});

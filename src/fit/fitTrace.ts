import { geometricScales, windowCounts, type WindowCounts } from './counts.js';
import { idcTwoPhase, mmppCountMoments } from './moments.js';
import { minimize1d } from './search.js';

/** Trace against fit at one time scale. */
export interface TraceFitScale {
  readonly seconds: number;
  readonly windows: number;
  /** Index of dispersion of counts Var N(t)/E N(t), trace and fit. */
  readonly idcTrace: number;
  readonly idcFit: number;
  /** Third central moment of the counts, trace and fit. */
  readonly thirdTrace: number;
  readonly thirdFit: number;
}

/** How well the fitted process reproduces the trace (returned with every trace-based solve). */
export interface TraceFitReport {
  readonly method: string;
  readonly arrivals: number;
  readonly durationSeconds: number;
  readonly meanRateTrace: number;
  readonly meanRateFit: number;
  /** 2, or 1 when the trace shows no burstiness beyond sampling noise (then a Poisson fit). */
  readonly phases: number;
  readonly scales: TraceFitScale[];
  /** max over scales of |IDC_fit − IDC_trace| / IDC_trace. */
  readonly maxIdcRelativeError: number;
  /** Root mean square, over scales, of the IDC misfit in standard errors of the trace's IDC. */
  readonly idcRmsZ: number;
  /** The same for the third central moment. */
  readonly thirdRmsZ: number;
}

export interface TraceFit {
  /** Phase rates [base, burst] (one entry for a Poisson fit). */
  readonly rates: number[];
  /** Generator, row-major. */
  readonly generator: number[];
  readonly report: TraceFitReport;
}

const METHOD =
  'moment matching: λ̄ = arrivals/duration; the IDC curve 1 + c·(1 − (1 − e^{−ρt})/(ρt)) fitted to the trace IDC at ' +
  'geometric time scales (weighted least squares, weights 1/SE² with SE = IDC·√(2/windows)) gives c and the decay ρ; ' +
  'the burst probability p then matches the third central moment of the counts (weights 1/SE², SE = σ³·√(6/windows))';

/** Fewest windows a time scale must have to enter the fit. */
const MIN_WINDOWS = 50;
const SCALES = 14;

/**
 * Fits a two-phase MMPP to a sorted trace of arrival times by moment matching:
 *   1. λ̄ = (n − 1)/duration;
 *   2. the index of dispersion of counts at 14 geometric time scales, from about 10 mean
 *      inter-arrival times to duration/50, fitted by the two-phase closed form in (c, ρ):
 *      c = IDC(∞) − 1 = 2d²p(1−p)/(ρλ̄) sets the size of the bursts (d = λ_burst − λ_base)
 *      and ρ = r_up + r_down their time scale;
 *   3. the remaining freedom, the burst probability p (rare strong bursts or frequent weak
 *      ones), from the third central moment of the counts at the same scales.
 * When the trace's dispersion stays within its sampling noise of 1, the fit is Poisson (one
 * phase). The report gives every scale's IDC and third moment, trace against fit.
 */
export function fitTwoPhaseMmpp(timestamps: ArrayLike<number>): TraceFit {
  const n = timestamps.length;
  const duration = timestamps[n - 1] - timestamps[0];
  const lambda = (n - 1) / duration;
  const from = 10 / lambda;
  // One window to spare: floor(duration / (duration / n)) can round to n − 1.
  const to = duration / (MIN_WINDOWS + 1);
  const stats = geometricScales(from, Math.max(to, from), to > from ? SCALES : 1).map((s) => windowCounts(timestamps, s));
  const idc = stats.map((s) => s.variance / s.mean);
  const idcSe = stats.map((s, i) => idc[i] * Math.sqrt(2 / s.windows));

  // Stage 1: (c, ρ). For a fixed ρ the model is linear in c, so only ρ is searched.
  const cFor = (rho: number): number => {
    let num = 0;
    let den = 0;
    stats.forEach((s, i) => {
      const f = idcTwoPhase(1, rho, s.seconds) - 1;
      const w = 1 / (idcSe[i] * idcSe[i]);
      num += w * f * (idc[i] - 1);
      den += w * f * f;
    });
    return Math.max(0, num / den);
  };
  const idcObjective = (logRho: number): number => {
    const rho = Math.exp(logRho);
    const c = cFor(rho);
    let sum = 0;
    stats.forEach((s, i) => {
      const z = (idcTwoPhase(c, rho, s.seconds) - idc[i]) / idcSe[i];
      sum += z * z;
    });
    return sum;
  };
  const logRho = minimize1d(idcObjective, Math.log(0.01 / stats[stats.length - 1].seconds), Math.log(100 / stats[0].seconds));
  const rho = Math.exp(logRho);
  const c = cFor(rho);
  const bursty = idc.some((v, i) => v - 1 > 3 * idcSe[i]) && c > 0;
  if (!bursty) return poissonFit(lambda, n, duration, stats);

  // Stage 2: p ∈ (0, pMax), pMax from λ_base = λ̄ − p·d ≥ 0.
  const a = (2 * lambda) / (c * rho);
  const pMax = a / (1 + a);
  const third = stats.map((s) => s.third);
  const thirdSe = stats.map((s) => s.variance ** 1.5 * Math.sqrt(6 / s.windows));
  const thirdObjective = (x: number): number => {
    const fit = twoPhase(lambda, c, rho, pMax / (1 + Math.exp(-x)));
    let sum = 0;
    stats.forEach((s, i) => {
      const z = (mmppCountMoments(fit.rates, fit.generator, fit.pi, s.seconds).third - third[i]) / thirdSe[i];
      sum += z * z;
    });
    return sum;
  };
  const x = minimize1d(thirdObjective, -12, 12);
  const fit = twoPhase(lambda, c, rho, pMax / (1 + Math.exp(-x)));
  return { rates: fit.rates, generator: fit.generator, report: report(fit, lambda, n, duration, stats) };
}

interface TwoPhase {
  readonly rates: number[];
  readonly generator: number[];
  readonly pi: number[];
}

/** The two-phase MMPP [base, burst] with mean λ̄, excess dispersion c, decay ρ and burst probability p. */
function twoPhase(lambda: number, c: number, rho: number, p: number): TwoPhase {
  const d = Math.sqrt((c * rho * lambda) / (2 * p * (1 - p)));
  const base = Math.max(0, lambda - p * d);
  const burst = lambda + (1 - p) * d;
  const up = rho * p;
  const down = rho * (1 - p);
  return { rates: [base, burst], generator: [-up, up, down, -down], pi: [1 - p, p] };
}

function poissonFit(lambda: number, n: number, duration: number, stats: WindowCounts[]): TraceFit {
  const fit: TwoPhase = { rates: [lambda], generator: [0], pi: [1] };
  return { rates: fit.rates, generator: fit.generator, report: report(fit, lambda, n, duration, stats) };
}

function report(fit: TwoPhase, lambda: number, n: number, duration: number, stats: WindowCounts[]): TraceFitReport {
  let maxRel = 0;
  let idcZ = 0;
  let thirdZ = 0;
  const scales = stats.map((s) => {
    const m = mmppCountMoments(fit.rates, fit.generator, fit.pi, s.seconds);
    const idcTrace = s.variance / s.mean;
    const idcFit = m.variance / m.mean;
    maxRel = Math.max(maxRel, Math.abs(idcFit - idcTrace) / idcTrace);
    idcZ += ((idcFit - idcTrace) / (idcTrace * Math.sqrt(2 / s.windows))) ** 2;
    thirdZ += ((m.third - s.third) / (s.variance ** 1.5 * Math.sqrt(6 / s.windows))) ** 2;
    return { seconds: s.seconds, windows: s.windows, idcTrace, idcFit, thirdTrace: s.third, thirdFit: m.third };
  });
  let meanRateFit = 0;
  fit.rates.forEach((r, j) => (meanRateFit += fit.pi[j] * r));
  return {
    method: METHOD,
    arrivals: n,
    durationSeconds: duration,
    meanRateTrace: lambda,
    meanRateFit,
    phases: fit.rates.length,
    scales,
    maxIdcRelativeError: maxRel,
    idcRmsZ: Math.sqrt(idcZ / stats.length),
    thirdRmsZ: Math.sqrt(thirdZ / stats.length),
  };
}

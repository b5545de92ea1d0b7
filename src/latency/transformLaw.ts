import type { CompiledModel } from '../model/compile.js';
import type { DetailedEvaluation } from '../policy/evaluate.js';
import type { Policy } from '../policy/policy.js';
import { entryLaw, type EntryLaw } from './entry.js';
import { eulerNodes, eulerRule, eulerSum, type EulerRule } from './euler.js';
import type { ResponseTimeLaw } from './law.js';
import { Passage } from './passage.js';

/**
 * The response-time law from its transform (passage.ts) inverted pointwise by Abate–Whitt's Euler
 * method, for random service times, whose CDF is smooth (deterministic service has atoms and kinks,
 * which the mixture of mixture.ts handles exactly instead). The mean is −φ'(0) by a complex step.
 * The stated CDF error grows with the truncation estimates seen so far (a getter).
 */
export function transformLaw(model: CompiledModel, policy: Policy, ev: DetailedEvaluation): ResponseTimeLaw {
  const entry = entryLaw(model, policy, ev.stationary, ev.levels);
  const passage = new Passage(model, policy, entry);
  const inv = new Inverter(passage, entry, eulerRule());
  const lostMass = Math.max(0, 1 - passage.transform(0, 0).re);
  // Complex step: φ(ih) = φ(0) − ih·E[R] + O(h²), exact to rounding for h·E[R] ≪ 1e-8.
  const h = 1e-10 / Math.max(ev.meanResponseTime, 1e-12);
  const mean = -passage.transform(0, h).im / h;
  return {
    cdf: (t) => inv.at(t).F,
    density: (t) => inv.at(t).f,
    mean,
    lostMass,
    get cdfError() {
      return inv.errorBound(lostMass);
    },
    method: 'transform',
    atoms: Float64Array.from(entry.atoms.map((a) => a.at)).sort(),
    get work() {
      return inv.transforms + 2;
    },
  };
}

/** Euler inversion of F and f at one t, atoms removed and added back; the last t is cached. */
class Inverter {
  transforms = 0;
  private worstTruncation = 0;
  private readonly fRe: Float64Array;
  private readonly FRe: Float64Array;
  private lastT = NaN;
  private last = { F: 0, f: 0 };

  constructor(
    private readonly passage: Passage,
    private readonly entry: EntryLaw,
    private readonly rule: EulerRule,
  ) {
    this.fRe = new Float64Array(rule.coef.length);
    this.FRe = new Float64Array(rule.coef.length);
  }

  errorBound(lost: number): number {
    const A = this.rule.A;
    return Math.exp(-A) / (1 - Math.exp(-A)) + this.worstTruncation + lost;
  }

  at(t: number): { F: number; f: number } {
    if (t === this.lastT) return this.last;
    if (!(t > 0)) return { F: 0, f: 0 };
    const { re, im } = eulerNodes(this.rule, t);
    for (let k = 0; k < re.length; k++) {
      const v = this.passage.transform(re[k], im[k]);
      let vr = v.re;
      let vi = v.im;
      for (const a of this.entry.atoms) {
        // minus mass·e^(−θ·at)
        const m = a.mass * Math.exp(-re[k] * a.at);
        vr -= m * Math.cos(im[k] * a.at);
        vi += m * Math.sin(im[k] * a.at);
      }
      this.fRe[k] = vr;
      // F̂ = φ/θ
      const d = re[k] * re[k] + im[k] * im[k];
      this.FRe[k] = (vr * re[k] + vi * im[k]) / d;
    }
    this.transforms += re.length;
    const F = eulerSum(this.rule, t, this.FRe);
    const f = eulerSum(this.rule, t, this.fRe);
    this.worstTruncation = Math.max(this.worstTruncation, Math.abs(F.value - F.short));
    let steps = 0;
    for (const a of this.entry.atoms) if (t >= a.at) steps += a.mass;
    this.lastT = t;
    this.last = { F: F.value + steps, f: Math.max(0, f.value) };
    return this.last;
  }
}

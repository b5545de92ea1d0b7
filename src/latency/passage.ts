import type { CompiledModel } from '../model/compile.js';
import { countTilt } from '../model/tilt.js';
import { actionAt, type Policy } from '../policy/policy.js';
import type { EntryLaw } from './entry.js';
import { residualTable, type ResidualTable } from './residual.js';

/**
 * E[e^(−θR)] of a request arriving at a random moment (docs/model.md §9). From an epoch at level s
 * with k requests ahead of the tagged one (s = k + 1 + m), φ(s, k) = E[e^(−θ·remaining)]:
 *   wait:           φ(s, k) = λ/(λ + θ)·φ(s + 1, k)
 *   serve a ≤ k:    φ(s, k) = Σ_i E[e^(−θT_a)1{K_a = i}]·φ(s − a + i, k − a)
 *   serve a > k:    φ(s, k) = E[e^(−θT_a)]            (the tagged request is in the batch)
 * k only falls and m only rises, so the layers k = 0, 1, … are computed in turn, each from the top
 * level down. Levels stop at the evaluation's extension (`entry.levels`): a path past it is dropped,
 * and that mass (1 − φ(0)) is part of the stated accuracy.
 */
export class Passage {
  private readonly L: number;
  private readonly act: Int32Array;
  private readonly phiRe: Float64Array;
  private readonly phiIm: Float64Array;
  private readonly used: number[];
  private readonly gRe: Float64Array[];
  private readonly gIm: Float64Array[];
  private readonly lstRe: Float64Array;
  private readonly lstIm: Float64Array;
  private readonly tables = new Map<number, ResidualTable>();

  constructor(
    private readonly model: CompiledModel,
    policy: Policy,
    private readonly entry: EntryLaw,
  ) {
    const L = entry.levels;
    this.L = L;
    this.act = new Int32Array(L + 1);
    const seen = new Set<number>();
    for (let s = 0; s <= L; s++) {
      this.act[s] = actionAt(policy, s);
      if (this.act[s] > 0) seen.add(this.act[s]);
    }
    this.used = [...seen].sort((a, b) => a - b);
    this.phiRe = new Float64Array(L * L);
    this.phiIm = new Float64Array(L * L);
    const B = model.B;
    this.gRe = new Array<Float64Array>(B + 1);
    this.gIm = new Array<Float64Array>(B + 1);
    for (const a of this.used) {
      this.gRe[a] = new Float64Array(model.pmfLength[a]);
      this.gIm[a] = new Float64Array(model.pmfLength[a]);
    }
    this.lstRe = new Float64Array(B + 1);
    this.lstIm = new Float64Array(B + 1);
  }

  /** E[e^(−θR)] at θ = thRe + i·thIm (Re θ ≥ 0). */
  transform(thRe: number, thIm: number): { re: number; im: number } {
    const { model, L, act, phiRe, phiIm, entry } = this;
    const p = model.params;
    const lambda = model.rates[0];
    for (const a of this.used) {
      const t = countTilt(p.distribution, p.cv, lambda, p.meanService[a], thRe, thIm);
      const off = model.pmfOffset[a];
      const st = model.pmfStart[a];
      const gr = this.gRe[a];
      const gi = this.gIm[a];
      // c·w^(off + i)·p(i)
      let wr = t.cRe;
      let wi = t.cIm;
      for (let e = 0; e < off; e++) [wr, wi] = [wr * t.wRe - wi * t.wIm, wr * t.wIm + wi * t.wRe];
      for (let i = 0; i < gr.length; i++) {
        const pk = model.pmf[st + i];
        gr[i] = pk * wr;
        gi[i] = pk * wi;
        [wr, wi] = [wr * t.wRe - wi * t.wIm, wr * t.wIm + wi * t.wRe];
      }
      const s = countTilt(p.distribution, p.cv, 0, p.meanService[a], thRe, thIm);
      this.lstRe[a] = s.cRe;
      this.lstIm[a] = s.cIm;
    }
    // λ/(λ + θ)
    const dRe = lambda + thRe;
    const d2 = dRe * dRe + thIm * thIm;
    const waitRe = (lambda * dRe) / d2;
    const waitIm = (-lambda * thIm) / d2;
    for (let k = 0; k < L - 1; k++) {
      const row = k * L;
      for (let s = L - 1; s > k; s--) {
        const a = act[s];
        let vr = 0;
        let vi = 0;
        if (a === 0) {
          if (s + 1 < L) {
            const ur = phiRe[row + s + 1];
            const ui = phiIm[row + s + 1];
            vr = waitRe * ur - waitIm * ui;
            vi = waitRe * ui + waitIm * ur;
          }
        } else if (a > k) {
          vr = this.lstRe[a];
          vi = this.lstIm[a];
        } else {
          const from = (k - a) * L;
          const gr = this.gRe[a];
          const gi = this.gIm[a];
          const j0 = s - a + model.pmfOffset[a];
          const n = Math.min(gr.length, L - j0);
          for (let i = 0; i < n; i++) {
            const ur = phiRe[from + j0 + i];
            const ui = phiIm[from + j0 + i];
            vr += gr[i] * ur - gi[i] * ui;
            vi += gr[i] * ui + gi[i] * ur;
          }
        }
        phiRe[row + s] = vr;
        phiIm[row + s] = vi;
      }
    }
    let re = 0;
    let im = 0;
    for (let s = 0; s + 1 < L; s++) {
      const w = entry.idle[s];
      if (w > 0) {
        re += w * phiRe[s * L + s + 1];
        im += w * phiIm[s * L + s + 1];
      }
    }
    const done = new Set<number>();
    for (let s = 1; s < L; s++) {
      const w = entry.busy[s];
      if (!(w > 1e-300)) continue;
      const b = act[s];
      let tab = this.tables.get(b);
      if (!done.has(b)) {
        tab = residualTable(model, b, thRe, thIm, tab);
        this.tables.set(b, tab);
        done.add(b);
      }
      if (!tab) continue;
      const r0 = s - b;
      const W = tab.top + 1;
      let ar = 0;
      let ai = 0;
      for (let n = 0; n <= tab.top; n++) {
        const lev = r0 + 1 + n;
        if (lev >= L) break;
        const row = n * W;
        for (let i1 = 0; i1 <= n; i1++) {
          const kk = r0 + i1;
          const tr = tab.re[row + i1];
          const ti = tab.im[row + i1];
          const ur = phiRe[kk * L + lev];
          const ui = phiIm[kk * L + lev];
          ar += tr * ur - ti * ui;
          ai += tr * ui + ti * ur;
        }
      }
      re += w * ar;
      im += w * ai;
    }
    return { re, im };
  }
}

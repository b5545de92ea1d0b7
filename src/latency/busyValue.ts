import { clenshaw, clenshawMany } from './chebyshev.js';
import { gaussValues, settled, SETTLED, type BusyBlock } from './busyBlocks.js';
import { erlangBoth, erlangCdf, erlangFromExp, SHORT_ERLANG } from './poisson.js';

/**
 * Adds Σ_keys ∫_{max(0, x*)}^{l(b0)} ρ(x)·G_n(t − D − l(b0) + x) dx (x* = l(b0) + D − t) to out[0]
 * and its t-derivative (∫ ρ·g_n, plus ρ(x*) for an atom term whose kink lies inside) to out[1].
 */
const both = new Float64Array(2);
/** ρ at a kink term's Gauss nodes (and the nodes in z), reused by every call. */
let zs = new Float64Array(64);
let rs = new Float64Array(64);

export function blockValue(b: BusyBlock, lambda: number, t: number, out: Float64Array): void {
  const { L0, D, n: waits, mass, cheb, anti, antiTop, rhoW, fullX, fullExp } = b;
  const sub = b.basis.gauss;
  const P = b.basis.Q + 1;
  const G = sub.x.length;
  if (zs.length < G) {
    zs = new Float64Array(G);
    rs = new Float64Array(G);
  }
  for (let q = 0; q < b.count; q++) {
    const xStar = L0 + D[q] - t;
    if (xStar >= L0) continue;
    const n = waits[q];
    if (xStar <= 0) {
      // the whole batch lies before t − D: no kink
      const u0 = t - D[q] - L0;
      if (n === 0 || settled(n, lambda * u0) || Math.abs(mass[q]) * (1 - erlangCdf(n, lambda * u0)) < SETTLED) {
        out[0] += mass[q];
        continue;
      }
      let F = 0;
      let f = 0;
      if (b.rhoReady[q] === 0) gaussValues(b, q);
      const o = q * G;
      if (n <= SHORT_ERLANG && lambda * (u0 + L0) < 700) {
        // e^(−λ(u0 + x)) = e^(−λu0)·e^(−λx): one exponential for the key, not one per node
        const e0 = Math.exp(-lambda * u0);
        for (let g = 0; g < G; g++) {
          erlangFromExp(n, lambda * (u0 + fullX[g]), e0 * fullExp[g], both);
          F += rhoW[o + g] * both[0];
          f += rhoW[o + g] * both[1];
        }
        f *= lambda;
      } else {
        for (let g = 0; g < G; g++) {
          erlangBoth(n, lambda, u0 + fullX[g], both);
          F += rhoW[o + g] * both[0];
          f += rhoW[o + g] * both[1];
        }
      }
      out[0] += F;
      out[1] += f;
      continue;
    }
    const zStar = (2 * xStar) / L0 - 1;
    if (n === 0) {
      // ∫_{x*}^{l(b0)} ρ dx = l(b0)/2·(P(1) − P(z*)) with P the series' antiderivative
      out[0] += (L0 / 2) * (antiTop[q] - clenshaw(anti, zStar, q * (P + 1), P + 1));
      out[1] += clenshaw(cheb, zStar, q * P, P);
      continue;
    }
    const span = L0 - xStar;
    let F = 0;
    let f = 0;
    const short = n <= SHORT_ERLANG && lambda * span < 700;
    for (let g = 0; g < G; g++) zs[g] = zStar + (2 * (sub.x[g] * span)) / L0;
    clenshawMany(cheb, q * P, P, zs, rs, G);
    for (let g = 0; g < G; g++) {
      const u = sub.x[g] * span;
      const r = sub.w[g] * rs[g];
      if (short) {
        erlangFromExp(n, lambda * u, Math.exp(-lambda * u), both);
        both[1] *= lambda;
      } else erlangBoth(n, lambda, u, both);
      F += r * both[0];
      f += r * both[1];
    }
    out[0] += F * span;
    out[1] += f * span;
  }
}

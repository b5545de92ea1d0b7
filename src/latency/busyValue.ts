import { clenshaw } from './chebyshev.js';
import { settled, SETTLED, type BusyBlock } from './busyBlocks.js';
import { erlangBoth, erlangCdf, erlangFromExp, SHORT_ERLANG } from './poisson.js';

/**
 * Adds Σ_keys ∫_{max(0, x*)}^{l(b0)} ρ(x)·G_n(t − D − l(b0) + x) dx (x* = l(b0) + D − t) to out[0]
 * and its t-derivative (∫ ρ·g_n, plus ρ(x*) for an atom term whose kink lies inside) to out[1].
 */
const both = new Float64Array(2);

export function blockValue(b: BusyBlock, lambda: number, t: number, out: Float64Array): void {
  const { L0, sub } = b;
  for (const key of b.keys) {
    const xStar = L0 + key.D - t;
    if (xStar >= L0) continue;
    const n = key.n;
    if (xStar <= 0) {
      // the whole batch lies before t − D: no kink
      const u0 = t - key.D - L0;
      if (n === 0 || settled(n, lambda * u0) || Math.abs(key.mass) * (1 - erlangCdf(n, lambda * u0)) < SETTLED) {
        out[0] += key.mass;
        continue;
      }
      let F = 0;
      let f = 0;
      const rhoW = key.rhoW; // filled for every term with waits (n ≥ 1)
      if (n <= SHORT_ERLANG && lambda * (u0 + L0) < 700) {
        // e^(−λ(u0 + x)) = e^(−λu0)·e^(−λx): one exponential for the key, not one per node
        const e0 = Math.exp(-lambda * u0);
        for (let g = 0; g < b.fullX.length; g++) {
          erlangFromExp(n, lambda * (u0 + b.fullX[g]), e0 * b.fullExp[g], both);
          F += rhoW[g] * both[0];
          f += rhoW[g] * both[1];
        }
        f *= lambda;
      } else {
        for (let g = 0; g < b.fullX.length; g++) {
          erlangBoth(n, lambda, u0 + b.fullX[g], both);
          F += rhoW[g] * both[0];
          f += rhoW[g] * both[1];
        }
      }
      out[0] += F;
      out[1] += f;
      continue;
    }
    const zStar = (2 * xStar) / L0 - 1;
    if (n === 0) {
      // ∫_{x*}^{l(b0)} ρ dx = l(b0)/2·(P(1) − P(z*)) with P the series' antiderivative
      out[0] += (L0 / 2) * (key.antiTop - clenshaw(key.anti, zStar));
      out[1] += clenshaw(key.cheb, zStar);
      continue;
    }
    const span = L0 - xStar;
    let F = 0;
    let f = 0;
    const short = n <= SHORT_ERLANG && lambda * span < 700;
    for (let g = 0; g < sub.x.length; g++) {
      const u = sub.x[g] * span;
      const r = sub.w[g] * clenshaw(key.cheb, zStar + (2 * u) / L0);
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

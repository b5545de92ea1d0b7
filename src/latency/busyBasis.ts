import { chebIntegral, chebyshevMatrix } from './chebyshev.js';
import { gaussLegendre } from './gauss.js';

/**
 * What a busy block's linear maps depend on: only its number of Chebyshev intervals Q, not its
 * batch time (every map below is scale-free on [0, 1]; a block multiplies by l(b0) where needed).
 * Built once per Q and cached: a solve's blocks share a handful of Q, and consecutive solves the same.
 */
export interface BusyBasis {
  readonly Q: number;
  /** Chebyshev points on [0, 1]: (1 − cos(πc/Q))/2. */
  readonly nodes: Float64Array;
  /**
   * Values → Chebyshev coefficients in z = 2x − 1 ((Q + 1)², row i the coefficient of T_i). Row i
   * is (−1)^i times itself reversed (the points are symmetric), which seriesOf uses.
   */
  readonly toSeries: Float64Array;
  /** Clenshaw–Curtis weights on the values: ∫₋₁¹ p dz and ∫₋₁¹ p·z dz of the interpolant p. */
  readonly w0: Float64Array;
  readonly w1: Float64Array;
  /** Gauss–Legendre rule on [0, 1] for the block's integrals (full interval and from a kink). */
  readonly gauss: { readonly x: Float64Array; readonly w: Float64Array };
  /** The Gauss nodes in z = 2x − 1. */
  readonly gaussZ: Float64Array;
  /** A bound on the Lebesgue constant of the points, (2/π)·ln(Q + 1) + 1: a change δ in the values moves the interpolant by at most this times max|δ|. */
  readonly lebesgue: number;
}

const cache = new Map<number, BusyBasis>();

export function busyBasis(Q: number): BusyBasis {
  const hit = cache.get(Q);
  if (hit) return hit;
  const P = Q + 1;
  const nodes = new Float64Array(P);
  for (let c = 0; c <= Q; c++) nodes[c] = (1 - Math.cos((Math.PI * c) / Q)) / 2;
  const toSeries = chebyshevMatrix(Q);
  // In z = 2x − 1: ∫₋₁¹ T_i = 2/(1 − i²) (i even), z·T_i = (T_{i+1} + T_{i−1})/2.
  const w0 = new Float64Array(P);
  const w1 = new Float64Array(P);
  for (let i = 0; i <= Q; i++) {
    const a = chebIntegral(i);
    const b = i === 0 ? chebIntegral(1) : (chebIntegral(i + 1) + chebIntegral(i - 1)) / 2;
    for (let c = 0; c <= Q; c++) {
      w0[c] += a * toSeries[i * P + c];
      w1[c] += b * toSeries[i * P + c];
    }
  }
  const gauss = gaussLegendre(Math.ceil(Q / 2) + 12);
  const gaussZ = gauss.x.map((x) => 2 * x - 1);
  const basis = { Q, nodes, toSeries, w0, w1, gauss, gaussZ, lebesgue: (2 / Math.PI) * Math.log(Q + 1) + 1 };
  cache.set(Q, basis);
  return basis;
}

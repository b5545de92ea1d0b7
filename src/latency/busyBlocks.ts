import { busyBasis, type BusyBasis } from './busyBasis.js';
import { blockWeights, type BlockWeights } from './busyWeights.js';
import { antiderivative, clenshawMany } from './chebyshev.js';
import type { Continuation } from './continuation.js';
import { poissonRow } from './poisson.js';

/**
 * The arrivals that come during a batch (docs/model.md §9.1): per batch size b0, the terms (D, n)
 * their continuations reach, each with its weight ρ(x) over the elapsed time x of the batch
 * (P(R ≤ t) of those arrivals at any t: busyValue.ts). The terms are held as columns (key q's
 * series at cheb[q·(Q + 1), …)): one allocation per column, not per term.
 */
export interface BusyBlock {
  readonly L0: number;
  readonly basis: BusyBasis;
  /** The basis' Gauss–Legendre nodes on [0, l(b0)], and e^(−λx) at them. */
  readonly fullX: Float64Array;
  readonly fullExp: Float64Array;
  readonly count: number;
  readonly D: Float64Array;
  readonly n: Int32Array;
  /** ∫ρ over the whole batch. */
  readonly mass: Float64Array;
  /** ∫ρ(x)·(l(b0) − x) dx: the batch time left, for the mean. */
  readonly left: Float64Array;
  /** ρ as a Chebyshev series in z = 2x/l(b0) − 1 (Q + 1 per term). */
  readonly cheb: Float64Array;
  /** The series of ∫ρ dz (Q + 2 per term), and its value at z = 1. */
  readonly anti: Float64Array;
  readonly antiTop: Float64Array;
  /**
   * ρ·weight·l(b0) at fullX (G per term), for a term with waits whose whole batch lies before t:
   * filled on first use (gaussValues), which most terms never see; rhoReady[q] says whether it is.
   */
  readonly rhoW: Float64Array;
  readonly rhoReady: Uint8Array;
}

/** Chebyshev points per block: they resolve Poisson bumps of relative width ~1/√(λ·l(b0)). */
const Q_PER_ROOT = 5;
/** A term whose Erlang part is done but for this much mass counts as complete (summed into the error). */
export const SETTLED = 1e-19;

/** Length of a Poisson row that leaves < 1e-17 beyond it. */
export function rowLength(mu: number): number {
  return Math.ceil(mu + 9 * Math.sqrt(mu) + 24);
}

/** P(Erlang(n) ≤ x/λ) = 1 to 1e-17 (x is λ·u). */
export function settled(n: number, x: number): boolean {
  return x > n + 10 * Math.sqrt(n) + 45;
}

export function busyBlock(cont: Continuation, W: number, lambda: number, L0: number, b0: number, levels: number[], nu: Float64Array, Y: number, skipped: { value: number }, prune: number): BusyBlock {
  const mu = lambda * L0;
  const Q = Math.min(1024, Math.max(20, Math.ceil(Q_PER_ROOT * Math.sqrt(mu)) + 12));
  const basis = busyBasis(Q);
  const P = Q + 1;
  const I = rowLength(mu);
  // ahead[i·P + c] = Pois(i; λx_c), behind[j·P + c] = Pois(j; λ(l − x_c)), j ≥ mCap lumped in the last row
  const ahead = new Float64Array(I * P);
  const behind = new Float64Array(W * P);
  const rowA = new Float64Array(I);
  const rowB = new Float64Array(Math.max(W, 1));
  for (let c = 0; c <= Q; c++) {
    const x = L0 * basis.nodes[c];
    poissonRow(lambda * x, rowA);
    for (let i = 0; i < I; i++) ahead[i * P + c] = rowA[i];
    poissonRow(lambda * (L0 - x), rowB);
    let below = 0;
    for (let j = 0; j < W - 1; j++) {
      behind[j * P + c] = rowB[j];
      below += rowB[j];
    }
    behind[(W - 1) * P + c] = Math.max(0, 1 - below);
  }
  // A[k][c] = Σ_{s'} ν(s')/Y·Pois(k − r0; λx_c)
  let kLo = Infinity;
  let kHi = -1;
  for (const s of levels) {
    kLo = Math.min(kLo, s - b0);
    kHi = Math.max(kHi, s - b0 + I - 1);
  }
  kHi = Math.min(kHi, cont.kMax);
  const A = new Float64Array((kHi - kLo + 1) * P);
  for (const s of levels) {
    const w = nu[s] / Y;
    const r0 = s - b0;
    for (let i = 0; i < I && r0 + i <= kHi; i++) {
      const base = (r0 + i - kLo) * P;
      const src = i * P;
      for (let c = 0; c <= Q; c++) A[base + c] += w * ahead[src + c];
    }
  }
  return blockOf(cont, basis, lambda, L0, blockWeights(cont, W, A, kLo, kHi, behind, I, Q, L0, basis.lebesgue, b0, prune, skipped), skipped, prune);
}

/** The terms' columns from their values: mass and time left (Clenshaw–Curtis), series, antiderivative, Gauss values. */
function blockOf(cont: Continuation, basis: BusyBasis, lambda: number, L0: number, weights: BlockWeights, skipped: { value: number }, prune: number): BusyBlock {
  const { count: total, radix: waits, dense, rho } = weights;
  const { Q, w0, w1, toSeries } = basis;
  const P = Q + 1;
  const G = basis.gauss.x.length;
  // ∫ρ dx = l/2·∫ρ dz and ∫ρ·(l − x) dx = l²/4·∫ρ·(1 − z) dz; a term whose mass is under `prune` is left out.
  const keep = new Int32Array(total);
  const M = new Float64Array(total);
  const Lf = new Float64Array(total);
  let count = 0;
  for (let q = 0; q < total; q++) {
    let I0 = 0;
    let I1 = 0;
    for (let c = 0; c <= Q; c++) {
      I0 += w0[c] * rho[q * P + c];
      I1 += w1[c] * rho[q * P + c];
    }
    const m = (L0 / 2) * I0;
    if (Math.abs(m) < prune) {
      skipped.value += Math.abs(m);
      continue;
    }
    keep[count] = q;
    M[count] = m;
    Lf[count++] = ((L0 * L0) / 4) * (I0 - I1);
  }
  const D = new Float64Array(count);
  const n = new Int32Array(count);
  const cheb = new Float64Array(count * P);
  const anti = new Float64Array(count * (P + 1));
  const antiTop = new Float64Array(count);
  for (let r = 0; r < count; r++) {
    const q = keep[r];
    D[r] = cont.shifts[Math.floor(dense[q] / waits)];
    n[r] = dense[q] % waits;
    seriesOf(toSeries, Q, rho, q * P, cheb, r * P);
    antiderivative(cheb, r * P, P, anti, r * (P + 1));
    let top = 0;
    for (let i = 0; i <= P; i++) top += anti[r * (P + 1) + i];
    antiTop[r] = top;
  }
  const fullX = basis.gauss.x.map((x) => x * L0);
  const fullExp = fullX.map((x) => Math.exp(-lambda * x));
  const rhoW = new Float64Array(count * G);
  const rhoReady = new Uint8Array(count);
  return { L0, basis, fullX, fullExp, count, D, n, mass: M.subarray(0, count), left: Lf.subarray(0, count), cheb, anti, antiTop, rhoW, rhoReady };
}

/** Values → series: row i of the map is (−1)^i times itself reversed, so each row runs over half the points, on their sums (even i) or differences (odd i). */
const half = { u: new Float64Array(64), v: new Float64Array(64) };
function seriesOf(toSeries: Float64Array, Q: number, rho: Float64Array, from: number, out: Float64Array, to: number): void {
  const P = Q + 1;
  const H = P >> 1; // pairs (c, Q − c), c < H; a middle point when Q is even
  if (half.u.length < H) half.u = new Float64Array(P);
  if (half.v.length < H) half.v = new Float64Array(P);
  const { u, v } = half;
  for (let c = 0; c < H; c++) {
    u[c] = rho[from + c] + rho[from + Q - c];
    v[c] = rho[from + c] - rho[from + Q - c];
  }
  const mid = P % 2 === 1 ? rho[from + H] : 0;
  for (let i = 0; i <= Q; i++) {
    const row = i * P;
    const w = i % 2 === 0 ? u : v;
    let s = P % 2 === 1 ? toSeries[row + H] * mid : 0;
    for (let c = 0; c < H; c++) s += toSeries[row + c] * w[c];
    out[to + i] = s;
  }
}

/** Fills rhoW's row q from the term's series: ρ at the Gauss nodes, times their weights and l(b0). */
export function gaussValues(b: BusyBlock, q: number): void {
  const { gauss, gaussZ, Q } = b.basis;
  const G = gaussZ.length;
  clenshawMany(b.cheb, q * (Q + 1), Q + 1, gaussZ, b.rhoW.subarray(q * G, (q + 1) * G), G);
  for (let g = 0; g < G; g++) b.rhoW[q * G + g] *= gauss.w[g] * b.L0;
  b.rhoReady[q] = 1;
}

import type { CompiledModel } from '../model/compile.js';
import { LimitError } from '../model/errors.js';
import { isDeterministicLaw } from '../model/tilt.js';
import type { DetailedEvaluation } from '../policy/evaluate.js';
import { actionAt, type Policy } from '../policy/policy.js';
import { continuation, WAIT_RADIX, type Continuation } from './continuation.js';
import { gaussLegendre } from './gauss.js';
import type { ResponseTimeLaw } from './law.js';
import { erlangCdf, logFactorial, poissonRow } from './poisson.js';

/**
 * P(R ≤ t) under deterministic service and Poisson arrivals (docs/model.md §9) in closed form up to
 * one smooth one-dimensional integral per term:
 *   R = (time left of the batch it arrives during, if any) + D + Erlang(n, λ),
 * with (D, n) from the exact mixture of continuation.ts. By PASTA an arrival finds
 *   - the server idle at level s (share ν(s)/(λ·Y), Y = Σν·y): it is the next epoch, with k = s ahead;
 *   - a batch of b0 in service, started at level s' (r0 = s' − b0 left waiting), at elapsed time x,
 *     uniform over the batch (density ν(s')/Y per unit time), having i1 ~ Poisson(λx) arrivals
 *     ahead of it and then j ~ Poisson(λ(l(b0) − x)) behind it before the batch ends.
 * The second kind contributes ∫₀^{l(b0)} ρ(x)·G_n(t − D − l(b0) + x) dx per term, where ρ(x) sums
 * ν(s')/Y·Pois(i1; λx)·Pois(j; λ(l(b0) − x))·c over the (s', i1, j) reaching that term: an entire
 * function of x, held by its values at Chebyshev points (interpolated barycentrically) and integrated
 * by Gauss–Legendre from the kink x = l(b0) + D − t on, where the integrand is smooth.
 */
interface BusyKey {
  readonly D: number;
  readonly n: number;
  /** ∫ρ over the whole batch. */
  readonly mass: number;
  /** ρ as a Chebyshev series in z = 2x/l(b0) − 1. */
  readonly cheb: Float64Array;
  /** The series of ∫ρ dz, and its value at z = 1. */
  readonly anti: Float64Array;
  readonly antiTop: number;
  /** ρ·weight·l(b0) at the block's full-interval Gauss–Legendre nodes. */
  readonly rhoW: Float64Array;
}

interface BusyBlock {
  readonly L0: number;
  readonly nodes: Float64Array;
  readonly bary: Float64Array;
  /** Full-interval Gauss–Legendre nodes on [0, l(b0)]. */
  readonly fullX: Float64Array;
  readonly sub: { readonly x: Float64Array; readonly w: Float64Array };
  readonly keys: BusyKey[];
}

/** Chebyshev points per block: they resolve Poisson bumps of relative width ~1/√(λ·l(b0)). */
const Q_PER_ROOT = 5;
/** Weight (a bound on its CDF mass) under which an (ahead, behind) state or a term is left out. */
const SKIP = 1e-19;
/** A term whose Erlang part is done but for this much mass counts as complete (summed into the error). */
const SETTLED = 1e-19;

export function deterministicLaw(model: CompiledModel, policy: Policy, ev: DetailedEvaluation): ResponseTimeLaw {
  if (model.M !== 1) throw new LimitError('arrivalProcess', 'the deterministic-service distribution is for Poisson arrivals');
  if (!isDeterministicLaw(model.params.distribution, model.params.cv)) throw new LimitError('serviceTime.distribution', 'this method is for deterministic service');
  const lambda = model.rates[0];
  const l = model.params.meanService;
  const nu = ev.stationary;
  let Y = 0;
  for (let s = 0; s < ev.levels; s++) {
    const a = actionAt(policy, s);
    Y += nu[s] * (a === 0 ? 1 / lambda : l[a]);
  }
  // Entry levels: up to where the stationary tail left is < 1e-18 (counted as lost mass).
  let L = ev.levels;
  let cut = 0;
  while (L > 1 && cut + nu[L - 1] < 1e-18) cut += nu[--L];
  const busyByB = new Map<number, number[]>();
  let iMax = 0;
  for (let s = 0; s < L; s++) {
    const a = actionAt(policy, s);
    if (a === 0 || !(nu[s] > 0)) continue;
    let list = busyByB.get(a);
    if (!list) {
      busyByB.set(a, (list = []));
      iMax = Math.max(iMax, rowLength(lambda * l[a]));
    }
    list.push(s);
  }
  const cont = continuation(model, policy, L + iMax);
  const W = cont.mCap + 1;
  let worstTv = 0;
  for (let i = 0; i < cont.tv.length; i++) worstTv = Math.max(worstTv, cont.tv[i]);

  // Idle arrivals: exact shifted Erlang terms.
  const idle = new Map<number, number>();
  for (let s = 0; s < L; s++) {
    if (actionAt(policy, s) !== 0 || !(nu[s] > 0)) continue;
    const w = nu[s] / (lambda * Y);
    const i = s * W;
    for (let t = cont.start[i]; t < cont.end[i]; t++) {
      const key = cont.shift[t] * WAIT_RADIX + cont.waits[t];
      idle.set(key, (idle.get(key) ?? 0) + w * cont.coef[t]);
    }
  }
  const idleD: number[] = [];
  const idleN: number[] = [];
  const idleC: number[] = [];
  let skipped = 0;
  for (const [key, c] of idle) {
    if (Math.abs(c) < SKIP) {
      skipped += Math.abs(c);
      continue;
    }
    idleD.push(cont.shifts[Math.floor(key / WAIT_RADIX)]);
    idleN.push(key % WAIT_RADIX);
    idleC.push(c);
  }

  const skip = { value: 0 };
  const blocks: BusyBlock[] = [];
  let busyExact = 0;
  for (const [b0, levels] of busyByB) {
    blocks.push(busyBlock(cont, W, lambda, l[b0], b0, levels, nu, Y, skip));
    for (const s of levels) busyExact += (nu[s] / Y) * l[b0];
  }
  skipped += skip.value;

  let mass = 0;
  let mean = 0;
  for (let q = 0; q < idleC.length; q++) {
    mass += idleC[q];
    mean += idleC[q] * (idleD[q] + idleN[q] / lambda);
  }
  let busyMass = 0;
  for (const b of blocks) {
    for (const key of b.keys) {
      let m1 = 0;
      for (let g = 0; g < b.fullX.length; g++) m1 += key.rhoW[g] * (b.L0 - b.fullX[g]);
      busyMass += key.mass;
      mass += key.mass;
      mean += m1 + key.mass * (key.D + key.n / lambda);
    }
  }
  let terms = idleC.length;
  for (const b of blocks) terms += b.keys.length;
  const interpolation = Math.abs(busyMass - busyExact);
  const lostMass = Math.max(0, 1 - mass);

  // One pass gives both: the percentile search asks for F and f at the same t.
  let lastT = NaN;
  const last = new Float64Array(2);
  const evaluate = (t: number): Float64Array => {
    if (t === lastT) return last;
    lastT = t;
    last[0] = last[1] = 0;
    if (!(t > 0)) return last;
    for (let q = 0; q < idleC.length; q++) {
      const u = t - idleD[q];
      if (u < 0) continue;
      const n = idleN[q];
      if (n === 0 || settled(n, lambda * u)) last[0] += idleC[q];
      else {
        last[0] += idleC[q] * erlangCdf(n, lambda * u);
        if (u > 0) last[1] += idleC[q] * erlangPdf(n, lambda, u);
      }
    }
    for (const b of blocks) blockValue(b, lambda, t, last);
    return last;
  };
  return {
    cdf: (t) => evaluate(t)[0],
    density: (t) => evaluate(t)[1],
    mean,
    lostMass,
    cdfError: lostMass + skipped + worstTv + interpolation + terms * SETTLED + 1e-14,
    method: 'mixture',
    work: terms,
  };
}

/** Length of a Poisson row that leaves < 1e-17 beyond it. */
function rowLength(mu: number): number {
  return Math.ceil(mu + 9 * Math.sqrt(mu) + 24);
}

/** P(Erlang(n) ≤ x/λ) = 1 to 1e-17 (x is λ·u). */
function settled(n: number, x: number): boolean {
  return x > n + 10 * Math.sqrt(n) + 45;
}

function busyBlock(cont: Continuation, W: number, lambda: number, L0: number, b0: number, levels: number[], nu: Float64Array, Y: number, skipped: { value: number }): BusyBlock {
  const mu = lambda * L0;
  const Q = Math.min(1024, Math.max(20, Math.ceil(Q_PER_ROOT * Math.sqrt(mu)) + 12));
  const nodes = new Float64Array(Q + 1);
  const bary = new Float64Array(Q + 1);
  for (let c = 0; c <= Q; c++) {
    nodes[c] = (L0 * (1 - Math.cos((Math.PI * c) / Q))) / 2;
    bary[c] = (c % 2 === 0 ? 1 : -1) * (c === 0 || c === Q ? 0.5 : 1);
  }
  const I = rowLength(mu);
  const ahead = new Float64Array(I * (Q + 1)); // [i·(Q+1) + c]
  const behind = new Float64Array(W * (Q + 1)); // [j·(Q+1) + c]
  const rowA = new Float64Array(I);
  const rowB = new Float64Array(Math.max(W, 1));
  for (let c = 0; c <= Q; c++) {
    poissonRow(lambda * nodes[c], rowA);
    for (let i = 0; i < I; i++) ahead[i * (Q + 1) + c] = rowA[i];
    poissonRow(lambda * (L0 - nodes[c]), rowB);
    let below = 0;
    for (let j = 0; j < W - 1; j++) {
      behind[j * (Q + 1) + c] = rowB[j];
      below += rowB[j];
    }
    behind[(W - 1) * (Q + 1) + c] = Math.max(0, 1 - below); // j ≥ mCap all behave as mCap
  }
  // A[k][c] = Σ_{s'} ν(s')/Y·Pois(k − r0; λx_c)
  let kLo = Infinity;
  let kHi = -1;
  for (const s of levels) {
    kLo = Math.min(kLo, s - b0);
    kHi = Math.max(kHi, s - b0 + I - 1);
  }
  kHi = Math.min(kHi, cont.kMax);
  const A = new Float64Array((kHi - kLo + 1) * (Q + 1));
  for (const s of levels) {
    const w = nu[s] / Y;
    const r0 = s - b0;
    for (let i = 0; i < I && r0 + i <= kHi; i++) {
      const base = (r0 + i - kLo) * (Q + 1);
      const src = i * (Q + 1);
      for (let c = 0; c <= Q; c++) A[base + c] += w * ahead[src + c];
    }
  }
  const keys = new Map<number, Float64Array>();
  const wv = new Float64Array(Q + 1);
  for (let k = kLo; k <= kHi; k++) {
    const base = (k - kLo) * (Q + 1);
    let top = 0;
    for (let c = 0; c <= Q; c++) top = Math.max(top, A[base + c]);
    if (!(top * L0 > SKIP)) {
      skipped.value += top * L0;
      continue;
    }
    for (let j = 0; j < W; j++) {
      if (j >= I && j < W - 1) continue; // Pois(j; ≤ λ·l(b0)) < 1e-17 there
      const bj = j * (Q + 1);
      let any = 0;
      for (let c = 0; c <= Q; c++) {
        const v = A[base + c] * behind[bj + c];
        wv[c] = v;
        if (v > any) any = v;
      }
      if (!(any * L0 > SKIP)) {
        skipped.value += any * L0;
        continue;
      }
      const st = k * W + j;
      for (let t = cont.start[st]; t < cont.end[st]; t++) {
        const key = cont.shift[t] * WAIT_RADIX + cont.waits[t];
        let rho = keys.get(key);
        if (!rho) keys.set(key, (rho = new Float64Array(Q + 1)));
        const cf = cont.coef[t];
        for (let c = 0; c <= Q; c++) rho[c] += cf * wv[c];
      }
    }
  }
  const full = gaussLegendre(Math.ceil(Q / 2) + 12);
  const fullX = full.x.map((x) => x * L0);
  const block = { L0, nodes, bary, fullX, sub: gaussLegendre(Math.ceil(Q / 2) + 12), keys: [] as BusyKey[] };
  // The same linear maps for every key of the block: values → Gauss–Legendre values, values → series.
  const toGauss = new Float64Array(fullX.length * (Q + 1));
  const unit = new Float64Array(Q + 1);
  for (let c = 0; c <= Q; c++) {
    unit.fill(0);
    unit[c] = 1;
    for (let g = 0; g < fullX.length; g++) toGauss[g * (Q + 1) + c] = interpolate(block, unit, fullX[g]) * full.w[g] * L0;
  }
  const toSeries = chebyshevMatrix(Q);
  for (const [key, rho] of keys) {
    const rhoW = new Float64Array(fullX.length);
    let m = 0;
    for (let g = 0; g < fullX.length; g++) {
      let v = 0;
      const row = g * (Q + 1);
      for (let c = 0; c <= Q; c++) v += toGauss[row + c] * rho[c];
      m += rhoW[g] = v;
    }
    if (Math.abs(m) < SKIP) {
      skipped.value += Math.abs(m);
      continue;
    }
    const cheb = new Float64Array(Q + 1);
    for (let i = 0; i <= Q; i++) {
      let v = 0;
      const row = i * (Q + 1);
      for (let c = 0; c <= Q; c++) v += toSeries[row + c] * rho[c];
      cheb[i] = v;
    }
    const anti = antiderivative(cheb);
    let antiTop = 0;
    for (let i = 0; i < anti.length; i++) antiTop += anti[i];
    block.keys.push({ D: cont.shifts[Math.floor(key / WAIT_RADIX)], n: key % WAIT_RADIX, mass: m, cheb, anti, antiTop, rhoW });
  }
  return block;
}

/**
 * Chebyshev coefficients of the interpolant through values at z_c = −cos(πc/Q), c = 0..Q
 * (the block's points in z = 2x/l(b0) − 1): a discrete cosine transform of type I, as a matrix.
 */
function chebyshevMatrix(Q: number): Float64Array {
  const m = new Float64Array((Q + 1) * (Q + 1));
  for (let i = 0; i <= Q; i++) {
    for (let c = 0; c <= Q; c++) {
      // z_c = cos(π(Q − c)/Q), so T_i(z_c) = cos(πi(Q − c)/Q)
      const w = c === 0 || c === Q ? 0.5 : 1;
      m[i * (Q + 1) + c] = ((i === 0 || i === Q ? 1 : 2) * w * Math.cos((Math.PI * i * (Q - c)) / Q)) / Q;
    }
  }
  return m;
}

/** Coefficients of an antiderivative of Σ a_i T_i (∫T_i = T_{i+1}/(2(i+1)) − T_{i−1}/(2(i−1))). */
function antiderivative(a: Float64Array): Float64Array {
  const n = a.length;
  const b = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) {
    if (i === 0) b[1] += a[0];
    else if (i === 1) b[2] += a[1] / 4;
    else {
      b[i + 1] += a[i] / (2 * (i + 1));
      b[i - 1] -= a[i] / (2 * (i - 1));
    }
  }
  return b;
}

/** Σ a_i T_i(z) by Clenshaw's recurrence. */
function clenshaw(a: Float64Array, z: number): number {
  let b1 = 0;
  let b2 = 0;
  const z2 = 2 * z;
  for (let i = a.length - 1; i >= 1; i--) {
    const b0 = z2 * b1 - b2 + a[i];
    b2 = b1;
    b1 = b0;
  }
  return z * b1 - b2 + a[0];
}

/** Barycentric interpolation at the block's Chebyshev points. */
function interpolate(b: Pick<BusyBlock, 'nodes' | 'bary'>, rho: Float64Array, x: number): number {
  let num = 0;
  let den = 0;
  const { nodes, bary } = b;
  for (let c = 0; c < nodes.length; c++) {
    const d = x - nodes[c];
    if (d === 0) return rho[c];
    const w = bary[c] / d;
    num += w * rho[c];
    den += w;
  }
  return num / den;
}

const both = new Float64Array(2);

/**
 * CDF and density of Erlang(n, λ) at u > 0 from one Poisson term: while λu ≤ n + 30 the CDF is the
 * upper Poisson tail summed from i = n (terms fall from there on), else 1 − the lower tail.
 */
function erlangBoth(n: number, lambda: number, u: number, out: Float64Array): void {
  const x = lambda * u;
  if (!(x > 0)) {
    out[0] = 0;
    out[1] = n === 1 ? lambda : 0;
    return;
  }
  // Pois(n − 1; x)
  const pm = n === 1 ? Math.exp(-x) : Math.exp(-x + (n - 1) * Math.log(x) - logFactorial(n - 1));
  out[1] = lambda * pm;
  if (n - 1 < x) {
    let term = pm;
    let sum = 0;
    for (let i = n - 1; i >= 0; i--) {
      sum += term;
      if (term < sum * 1e-17) break;
      term = (term * i) / x;
    }
    out[0] = 1 - sum;
  } else {
    let term = (pm * x) / n;
    let sum = 0;
    for (let i = n; ; i++) {
      sum += term;
      term = (term * x) / (i + 1);
      if (term < sum * 1e-17) break;
    }
    out[0] = sum;
  }
}

/** Density of Erlang(n, λ) at u: λ·Pois(n − 1; λu). */
function erlangPdf(n: number, lambda: number, u: number): number {
  const x = lambda * u;
  if (n === 1) return lambda * Math.exp(-x);
  return lambda * Math.exp(-x + (n - 1) * Math.log(x) - logFactorial(n - 1));
}


/**
 * Adds Σ_keys ∫_{max(0, x*)}^{l(b0)} ρ(x)·G_n(t − D − l(b0) + x) dx (x* = l(b0) + D − t) to out[0]
 * and its t-derivative (∫ ρ·g_n, plus ρ(x*) for an atom term whose kink lies inside) to out[1].
 */
function blockValue(b: BusyBlock, lambda: number, t: number, out: Float64Array): void {
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
      for (let g = 0; g < b.fullX.length; g++) {
        erlangBoth(n, lambda, u0 + b.fullX[g], both);
        F += key.rhoW[g] * both[0];
        f += key.rhoW[g] * both[1];
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
    for (let g = 0; g < sub.x.length; g++) {
      const u = sub.x[g] * span;
      const r = sub.w[g] * clenshaw(key.cheb, zStar + (2 * u) / L0);
      erlangBoth(n, lambda, u, both);
      F += r * both[0];
      f += r * both[1];
    }
    out[0] += F * span;
    out[1] += f * span;
  }
}

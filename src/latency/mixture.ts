import type { CompiledModel } from '../model/compile.js';
import { LimitError } from '../model/errors.js';
import { isDeterministicLaw } from '../model/tilt.js';
import type { DetailedEvaluation } from '../policy/evaluate.js';
import { actionAt, type Policy } from '../policy/policy.js';
import { busyBlock, rowLength, settled, SETTLED, type BusyBlock } from './busyBlocks.js';
import { blockValue } from './busyValue.js';
import { behindCap } from './clamp.js';
import { continuation, reachOf, WAIT_RADIX } from './continuation.js';
import type { ResponseTimeLaw } from './law.js';
import { erlangCdf, erlangPdf, poissonRow } from './poisson.js';

/**
 * A term or an (ahead, behind, term) contribution that moves P(R ≤ t) by less than this is left
 * out (its size summed into the stated error): it weighs the term by how many arrivals reach it.
 */
export const PRUNE = 1e-19;

/**
 * The first epoch state (k ahead, m behind) of an arrival, as shares of all arrivals: idle at
 * level s → (s, 0) with ν(s)/(λY); during a batch of b0 started at s' → (s' − b0 + i, j) with
 * ν(s')/Y·∫ Pois(i; λx)·Pois(j; λ(l − x)) dx = ν(s')/Y·Pois(i + j + 1; λl)/λ, j ≥ mCap lumped.
 */
function entryShares(model: CompiledModel, policy: Policy, nu: Float64Array, Y: number, L: number, kMax: number, W: number): Float64Array {
  const lambda = model.rates[0];
  const l = model.params.meanService;
  const out = new Float64Array((kMax + 1) * W);
  const tail = new Map<number, Float64Array>();
  for (let s = 0; s < L; s++) {
    const a = actionAt(policy, s);
    if (!(nu[s] > 0)) continue;
    if (a === 0) {
      out[s * W] += nu[s] / (lambda * Y);
      continue;
    }
    const I = rowLength(lambda * l[a]);
    let up = tail.get(a);
    if (!up) {
      // up[n] = P(Pois(λl) ≥ n)/λ, summed from the row's end (past it < 1e-17)
      const row = poissonRow(lambda * l[a], new Float64Array(I + W + 1));
      up = new Float64Array(row.length + 1);
      for (let n = row.length - 1; n >= 0; n--) up[n] = up[n + 1] + row[n] / lambda;
      tail.set(a, up);
    }
    const w = nu[s] / Y;
    for (let i = 0; i < I && s - a + i <= kMax; i++) {
      const base = (s - a + i) * W;
      // up is 0 past the row: j stops where i + j + 1 leaves it
      const jEnd = Math.min(W - 1, up.length - 2 - i);
      for (let j = 0; j < jEnd; j++) out[base + j] += w * (up[i + j + 1] - up[i + j + 2]);
      if (i + W < up.length) out[base + W - 1] += w * up[i + W];
    }
  }
  return out;
}

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
export function deterministicLaw(model: CompiledModel, policy: Policy, ev: DetailedEvaluation, prune = PRUNE): ResponseTimeLaw {
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
  const kMax = L + iMax;
  const mCap = behindCap(policy);
  const W = mCap + 1;
  const cont = continuation(model, policy, kMax, reachOf(model, policy, entryShares(model, policy, nu, Y, L, kMax, W), kMax, mCap), prune);

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
    if (Math.abs(c) < prune) {
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
    blocks.push(busyBlock(cont, W, lambda, l[b0], b0, levels, nu, Y, skip, prune));
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
  let terms = idleC.length;
  for (const b of blocks) {
    for (let q = 0; q < b.count; q++) {
      busyMass += b.mass[q];
      mass += b.mass[q];
      mean += b.left[q] + b.mass[q] * (b.D[q] + b.n[q] / lambda);
    }
    terms += b.count;
  }
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
    cdfError: lostMass + skipped + cont.lost + interpolation + terms * SETTLED + 1e-14,
    method: 'mixture',
    work: terms,
    atoms: Float64Array.from(new Set(idleD.filter((_, q) => idleN[q] === 0))).sort(),
  };
}

import { describe, expect, it } from 'vitest';
import { arrivalPmf } from '../../src/model/arrivals.js';
import { countingMatrices, type ServiceLaw } from '../../src/model/mmpp/counting.js';
import { arrivalIntegral } from '../../src/model/mmpp/integral.js';
import { makeMmpp, poissonAsMmpp, type MmppProcess } from '../../src/model/mmpp/process.js';
import { cinv, cmat, deterministicGf, erlangGf, invertGf, symbol, vanLoanIntegral, type GeneratingFunction, type Mmpp } from './reference.js';

const det = (T: number): ServiceLaw => ({ distribution: 'DETERMINISTIC', mean: T, secondMoment: T * T, cv: 0 });
const gamma = (l: number, cv: number): ServiceLaw => ({
  distribution: cv === 1 ? 'EXPONENTIAL' : 'GAMMA',
  mean: l,
  secondMoment: l * l * (1 + cv * cv),
  cv,
});

function proc(p: Mmpp): MmppProcess {
  return makeMmpp(p.rates, p.Q, 'mmpp');
}

/** Entry P(A = k, J = j' | J0 = j) of a counting block, 0 outside its support. */
function entry(b: { offset: number; length: number; probs: Float64Array }, M: number, k: number, j: number, jj: number): number {
  const i = k - b.offset;
  return i < 0 || i >= b.length ? 0 : b.probs[(j * b.length + i) * M + jj];
}

/** max |ours − reference| over k < L (the reference from the DFT of the generating function). */
function maxEntryError(p: Mmpp, law: ServiceLaw, gf: GeneratingFunction, L: number): { err: number; support: number } {
  const M = p.rates.length;
  const block = countingMatrices(proc(p), [law]).blocks[0];
  expect(block.offset + block.length).toBeLessThan(L);
  const ref = invertGf(gf, M, L);
  let err = 0;
  for (let k = 0; k < L; k++) {
    for (let j = 0; j < M; j++) {
      for (let jj = 0; jj < M; jj++) err = Math.max(err, Math.abs(entry(block, M, k, j, jj) - ref[(k * M + j) * M + jj]));
    }
  }
  return { err, support: block.length };
}

/** max over z on the unit circle and in (0, 1] of |Σ_k P_k z^k − reference(z)|. */
function maxTransformError(p: Mmpp, law: ServiceLaw, gf: GeneratingFunction, points: Array<[number, number]>): number {
  const M = p.rates.length;
  const block = countingMatrices(proc(p), [law]).blocks[0];
  let err = 0;
  for (const [zr, zi] of points) {
    const ours = cmat(M);
    // Horner from the top: Σ P_k z^k = z^offset·(P_0 + z(P_1 + …)).
    for (let i = block.length - 1; i >= 0; i--) {
      for (let e = 0; e < M * M; e++) {
        const j = Math.floor(e / M);
        const jj = e % M;
        const re = ours.re[e] * zr - ours.im[e] * zi + block.probs[(j * block.length + i) * M + jj];
        const im = ours.re[e] * zi + ours.im[e] * zr;
        ours.re[e] = re;
        ours.im[e] = im;
      }
    }
    const mag = Math.hypot(zr, zi);
    const ang = Math.atan2(zi, zr) * block.offset;
    const sc = mag ** block.offset;
    const ref = gf(zr, zi);
    for (let e = 0; e < M * M; e++) {
      const re = sc * (ours.re[e] * Math.cos(ang) - ours.im[e] * Math.sin(ang));
      const im = sc * (ours.re[e] * Math.sin(ang) + ours.im[e] * Math.cos(ang));
      err = Math.max(err, Math.hypot(re - ref.re[e], im - ref.im[e]));
    }
  }
  return err;
}

function circle(n: number, maxAngle: number): Array<[number, number]> {
  const pts: Array<[number, number]> = [];
  for (let i = 0; i < n; i++) {
    const a = (maxAngle * (i + 0.5)) / n;
    pts.push([Math.cos(a), Math.sin(a)]);
  }
  return pts;
}

const TWO: Mmpp = { rates: [300, 2400], Q: [-4, 4, 16, -16] };
const THREE: Mmpp = { rates: [0, 900, 5000], Q: [-30, 20, 10, 40, -50, 10, 5, 95, -100] };

describe('counting matrices P_k(T) against the inverse DFT of their generating function (1e-10)', () => {
  it('two phases, deterministic T, θT ≈ 50 (uniformization)', () => {
    const { err } = maxEntryError(TWO, det(0.02), deterministicGf(TWO, 0.02), 256);
    expect(err).toBeLessThan(1e-10);
  });

  it('three phases with a silent phase, deterministic T, θT ≈ 420 (doubling)', () => {
    const { err, support } = maxEntryError(THREE, det(0.004), deterministicGf(THREE, 0.004), 512);
    expect(support).toBeGreaterThan(40);
    expect(err).toBeLessThan(1e-10);
  });

  it('two phases, exponential T: μ(μI − D0 − zD1)⁻¹', () => {
    const { err } = maxEntryError(TWO, gamma(0.01, 1), erlangGf(TWO, 0.01, 1), 1024);
    expect(err).toBeLessThan(1e-10);
  });

  it('three phases, gamma T with cv = 1/√2 (Erlang 2): (I − (l/2)(D0 + zD1))⁻²', () => {
    const { err } = maxEntryError(THREE, gamma(0.003, Math.SQRT1_2), erlangGf(THREE, 0.003, 2), 512);
    expect(err).toBeLessThan(1e-10);
  });
});

describe('counting matrices of many service times at once (each from the previous one)', () => {
  it('five deterministic laws, unsorted and one repeated: each equals its own inverse DFT (1e-10)', () => {
    const Ts = [0.004, 0.0015, 0.0025, 0.001, 0.0025];
    const M = 3;
    const blocks = countingMatrices(proc(THREE), Ts.map(det)).blocks;
    Ts.forEach((T, n) => {
      const ref = invertGf(deterministicGf(THREE, T), M, 128);
      let err = 0;
      for (let k = 0; k < 128; k++) {
        for (let j = 0; j < M; j++) for (let jj = 0; jj < M; jj++) err = Math.max(err, Math.abs(entry(blocks[n], M, k, j, jj) - ref[(k * M + j) * M + jj]));
      }
      expect(err).toBeLessThan(1e-10);
    });
  });
});

describe('counting matrices at λT ≈ 10⁴ (stability) against exp(T(D0 + zD1))', () => {
  it('two phases, slow switching (qT ≈ 10), peak λT = 10⁴: every entry finite and ≥ 0, transform to 1e-10', () => {
    const p: Mmpp = { rates: [6000, 10000], Q: [-2, 2, 8, -8] };
    const law = det(1);
    const block = countingMatrices(proc(p), [law]).blocks[0];
    for (const v of block.probs) expect(v >= 0 && Number.isFinite(v)).toBe(true);
    // The bulk spans λ_low·T … λ_high·T: the output really covers both phases' counts.
    expect(block.offset).toBeLessThan(6000);
    expect(block.offset + block.length).toBeGreaterThan(10000);
    const pts: Array<[number, number]> = [...circle(24, 0.02), [0.9999, 0], [0.99995, 0]];
    expect(maxTransformError(p, law, deterministicGf(p, 1), pts)).toBeLessThan(1e-10);
  });

  it('eight phases, rates 1,200–1,270 /s over 7.5 s (λT up to 9,525): transform to 1e-10', () => {
    const rates: number[] = [];
    const Q: number[] = new Array<number>(64).fill(0);
    for (let i = 0; i < 8; i++) {
      rates.push(1200 + 10 * i);
      for (let j = 0; j < 8; j++) if (i !== j) Q[i * 8 + j] = 0.5 + ((i * 3 + j * 5) % 7) * 0.25;
      Q[i * 8 + i] = -Q.slice(i * 8, i * 8 + 8).reduce((a, b) => a + b, 0);
    }
    const p: Mmpp = { rates, Q };
    const law = det(7.5);
    const pts: Array<[number, number]> = [...circle(16, 0.03), [0.9999, 0]];
    expect(maxTransformError(p, law, deterministicGf(p, 7.5), pts)).toBeLessThan(1e-10);
  });
});

describe('M = 1 is the Poisson law of arrivals.ts', () => {
  for (const [name, law] of [
    ['deterministic, λT = 10⁴', det(10)],
    ['exponential, λT = 50', gamma(0.05, 1)],
    ['gamma cv = 0.4, λT = 300', gamma(0.3, 0.4)],
  ] as const) {
    it(name, () => {
      const block = countingMatrices(poissonAsMmpp(1000), [law]).blocks[0];
      const ref = arrivalPmf(law.distribution, 1000, law.mean, law.secondMoment, law.cv);
      let err = 0;
      for (let k = ref.offset; k < ref.offset + ref.probs.length; k++) err = Math.max(err, Math.abs(entry(block, 1, k, 0, 0) - ref.probs[k - ref.offset]));
      // Only the ≤ 1e-15 boundary atoms may move (the final cut folds them inwards).
      expect(err).toBeLessThan(2e-15);
    });
  }
});

describe('E[∫₀^T A(t) dt | J(0) = j] (integral.ts)', () => {
  it('deterministic T: matches the Van Loan block exponential to 1e-12 relative', () => {
    for (const [p, T] of [
      [TWO, 0.02],
      [THREE, 0.004],
      [TWO, 0.5],
    ] as const) {
      const pr = proc(p);
      const counting = countingMatrices(pr, [det(T)]);
      const ours = arrivalIntegral(pr, counting.theta, counting.events[0], T * T);
      const ref = vanLoanIntegral(p, T);
      ref.forEach((r, j) => expect(Math.abs(ours[j] - r) / r).toBeLessThan(1e-12));
    }
  });

  it('exponential T (rate μ): matches (1/μ)(μI − Q)⁻¹λ to 1e-12 relative', () => {
    const l = 0.01;
    const mu = 1 / l;
    const pr = proc(THREE);
    const counting = countingMatrices(pr, [gamma(l, 1)]);
    const ours = arrivalIntegral(pr, counting.theta, counting.events[0], 2 * l * l);
    const a = symbol({ rates: [0, 0, 0], Q: THREE.Q }, 1, 0, -1);
    for (let i = 0; i < 3; i++) a.re[i * 3 + i] += mu;
    const inv = cinv(a);
    for (let j = 0; j < 3; j++) {
      let r = 0;
      for (let k = 0; k < 3; k++) r += inv.re[j * 3 + k] * THREE.rates[k];
      r /= mu;
      expect(Math.abs(ours[j] - r) / r).toBeLessThan(1e-12);
    }
  });

  it('M = 1: exactly λ·E[T²]/2', () => {
    const pr = poissonAsMmpp(4000);
    const counting = countingMatrices(pr, [gamma(0.002, 0.7)]);
    const m2 = 0.002 * 0.002 * 1.49;
    expect(arrivalIntegral(pr, counting.theta, counting.events[0], m2)[0]).toBe((4000 * m2) / 2);
  });
});

import { afterAll, describe, expect, it } from 'vitest';
import { classesStep, fillBox, stepScratch } from '../../src/model/classes/bellman.js';
import { compileClasses, type ClassesModel } from '../../src/model/classes/compile.js';
import { validateClassesScenario } from '../../src/model/classes/validate.js';
import { df64CheckKernel } from '../../src/solve/gpu/df64.js';
import { releaseGpu } from '../../src/solve/gpu/device.js';
import { jointStepOnGpu } from '../../src/solve/gpu/jointStep.js';
import { StageResources } from '../../src/solve/gpu/stageLoop.js';
import { scenarioOf, type CaseClass } from '../classes/support.js';
import { rng } from '../helpers/random.js';
import { gpuForTests } from './gpuEnv.js';

const gpu = await gpuForTests();
afterAll(releaseGpu);

/** u² = 2^-48: the unit of double-float (two f32) rounding. */
const U2 = 2 ** -48;

/** A normalised f32 pair: hi and a random lo, |lo| < ulp(hi)/2. */
function withLo(r: () => number, hi: number): [number, number] {
  const ulp = 2 ** (Math.floor(Math.log2(Math.abs(hi))) - 23);
  return [hi, Math.fround((r() - 0.5) * 0.999 * ulp)];
}

/** A random pair, hi of binary exponent in [−12, 12]. */
function randomDf(r: () => number): [number, number] {
  return withLo(r, Math.fround((r() < 0.5 ? -1 : 1) * 2 ** (Math.floor(r() * 25) - 12) * (1 + r())));
}

/** Exact rationals: a dyadic f32 (or pair) as a BigInt of scale 2^SCALE. */
const SCALE = 200n;
const big = (v: number): bigint => BigInt(v * 2 ** Number(SCALE));
const bigDf = (p: ArrayLike<number>): bigint => big(p[0]) + big(p[1]);
const abs = (x: bigint): bigint => (x < 0n ? -x : x);
/** |err| / |ref| as a number (both at the same scale). */
function ratio(err: bigint, ref: bigint): number {
  if (ref === 0n) return err === 0n ? 0 : Infinity;
  return Number((abs(err) << 100n) / abs(ref)) / 2 ** 100;
}

describe(`double-float arithmetic on the GPU${gpu.skip}`, () => {
  it.skipIf(!gpu.ctx)('add, sub, mul and mul-add of 20000 random pairs are within a few u² of exact rational arithmetic, and two_sum, two_prod are exact (no contraction or reassociation by the compiler)', async () => {
    const ctx = gpu.ctx!;
    const count = 20000;
    const r = rng(44);
    const ops = new Float32Array(6 * count);
    for (let i = 0; i < count; i++) {
      const a = randomDf(r);
      // A quarter of the b are a's near-twins: cancellation in a − b (and a + (−b)).
      const b = i % 4 === 0 ? withLo(r, Math.fround(a[0] * (1 + 2 ** -(10 + (i % 13))))) : randomDf(r);
      ops.set([...a, ...b, ...randomDf(r)], 6 * i);
    }
    const res = new StageResources(ctx);
    let out: Float32Array;
    try {
      const buffers = { operands: res.upload(ops), results: res.upload(new ArrayBuffer(0), 4 * 12 * count) };
      const k = await res.bind(df64CheckKernel(64), buffers, { count }, { threads: count });
      const enc = ctx.device.createCommandEncoder();
      ctx.runner.encodePass(enc, [k], 'df64 check');
      const [data] = await ctx.runner.submit(enc, 'df64 check', [ctx.runner.encodeRead(enc, buffers.results, 4 * 12 * count)]);
      out = new Float32Array(data);
    } finally {
      res.release();
    }
    const worst = { add: 0, sub: 0, mul: 0, madd: 0 };
    for (let i = 0; i < count; i++) {
      const [a, b, c] = [0, 1, 2].map((j) => bigDf(ops.subarray(6 * i + 2 * j, 6 * i + 2 * j + 2)));
      const got = (j: number) => bigDf(out.subarray(12 * i + 2 * j, 12 * i + 2 * j + 2));
      const ah = big(ops[6 * i]);
      const bh = big(ops[6 * i + 2]);
      // The error-free transforms: exactly a.hi + b.hi and a.hi·b.hi.
      expect(got(4)).toBe(ah + bh);
      expect(got(5) << SCALE).toBe(ah * bh);
      worst.add = Math.max(worst.add, ratio(got(0) - (a + b), a + b));
      worst.sub = Math.max(worst.sub, ratio(got(1) - (a - b), a - b));
      worst.mul = Math.max(worst.mul, ratio((got(2) << SCALE) - a * b, a * b));
      // Relative to |a·b| + |c| (under cancellation a·b + c has no relative bound).
      worst.madd = Math.max(worst.madd, ratio((got(3) << SCALE) - (a * b + (c << SCALE)), abs(a * b) + abs(c << SCALE)));
    }
    const inU2 = Object.fromEntries(Object.entries(worst).map(([k, v]) => [k, v / U2]));
    console.log(`df64 worst relative errors in units of u² = 2^-48: ${JSON.stringify(inU2)}`);
    // Published bounds (Joldes, Muller, Popescu 2017): 3u² + 13u³ for the sum, 7u² for the product (DWTimesDW1); mul-add adds both.
    expect(inU2.add).toBeLessThanOrEqual(3.01);
    expect(inU2.sub).toBeLessThanOrEqual(3.01);
    expect(inU2.mul).toBeLessThanOrEqual(7);
    expect(inU2.madd).toBeLessThanOrEqual(10.01);
  });
});

const det: CaseClass = { name: 'a', rate: 200, B: 4, perItem: 0.001, base: 0.002, law: 'DETERMINISTIC', powerPerItem: 3, powerBase: 80, w: 1 };
const STEP_CASES: { name: string; cls: CaseClass[]; S: number[] }[] = [
  { name: 'two deterministic classes (per-axis sums), S = (20, 16)', cls: [det, { ...det, name: 'b', rate: 120, B: 3, perItem: 0.002, w: 2 }], S: [20, 16] },
  { name: 'gamma beside exponential (kernel rows), S = (12, 14)', cls: [{ ...det, law: 'GAMMA', cv: 0.5 }, { ...det, name: 'b', rate: 100, B: 3, law: 'EXPONENTIAL', w: 0.5 }], S: [12, 14] },
  { name: 'three classes, S = (5, 6, 4)', cls: [{ ...det, rate: 90, B: 2 }, { ...det, name: 'b', rate: 60, B: 2, perItem: 0.002, w: 2, law: 'GAMMA', cv: 0.5 }, { ...det, name: 'c', rate: 40, B: 2, perItem: 0.003, w: 0.5 }], S: [5, 6, 4] },
];

/** Values near the model's fixed point: 150 sweeps of the CPU's f64 RVI (the certificate is taken at such values). */
function nearFixedPoint(model: ClassesModel): Float64Array {
  const h = new Float64Array(model.states);
  const gap = new Float64Array(model.states);
  const scratch = stepScratch(model);
  for (let i = 0; i < 150; i++) {
    classesStep(model, h, gap, new Int32Array(model.states), scratch);
    const g0 = gap[0];
    for (let x = 0; x < h.length; x++) h[x] += gap[x] - g0;
  }
  return h;
}

/**
 * The a priori bound of docs/gpu.md ("df64") on |df64 value − exact value| per state, for a model
 * whose serves all sum kernel rows (no product kernel): per action γ·(|hold| + |κ| + ρ·Σ p·(|H − h| + |e|))
 * + ρ·Σ p·|e|, γ = (L + 4)·δ₊ + 3·δ× + 2·δ_in (L terms, δ_in the coefficients' rounding to pairs),
 * e the padded value's error (≤ (T·δ₊ + δ×)·Σ|w|·max|h| past a top, 0 inside); the max over the
 * allowed actions. `inputs` adds what rounding h to pairs moves the value by (unit·Σ|w|·|h| a padded
 * value; nothing for a certificate, which is that of the rounded h, but the CPU's step is of h
 * itself). With δ = 2^-53 a step the same bound holds for the CPU's f64 step.
 */
function roundingBound(model: ClassesModel, h: Float64Array, unit: number, inputs: boolean): Float64Array {
  const { C, S, dims, padDims, padStrides, strides, costSlope, waitRate, idleKappa, actions, actionClass, actionBatch, kappa, ratio, shift, rowStart, rowOffset, rowLength, rowValue, probs } = model;
  const plus = 3 * unit + 13 * unit ** 1.5;
  const times = 7 * unit;
  const scratch = stepScratch(model);
  fillBox(model, h, scratch, 'extrapolate');
  const H = scratch.H;
  const hmax = Math.max(...Array.from(h, Math.abs));
  const padErr = new Float64Array(H.length);
  const padIn = new Float64Array(H.length);
  for (let y = 0; y < H.length; y++) {
    let w = 1;
    let terms = 1;
    for (let c = 0, r = y; c < C; c++) {
      const at = Math.floor(r / padStrides[c]) % padDims[c];
      const m = at - S[c];
      if (m > 0) {
        w *= 1 + 2 * m + 2 * m * (m + 1);
        terms *= 3;
      }
    }
    padErr[y] = terms > 1 ? (terms * plus + times) * w * hmax : 0;
    padIn[y] = inputs ? unit * (terms > 1 ? w * hmax : Math.abs(H[y])) : 0;
  }
  const out = new Float64Array(model.states);
  for (let x = 0; x < model.states; x++) {
    const n = Array.from(dims, (_, c) => Math.floor(x / strides[c]) % dims[c]);
    const padded = n.reduce((s, v, c) => s + v * padStrides[c], 0);
    const hold = n.reduce((s, v, c) => s + Math.abs(costSlope[c] * v), 0);
    const bound = (L: number, k: number, rho: number, mag: number, err: number) => ((L + 4) * plus + 3 * times + 2 * unit) * (hold + Math.abs(k) + rho * (mag + err)) + rho * err;
    let worst = 0;
    if (n.every((v, c) => v < S[c])) {
      let mag = 0;
      let err = 0;
      for (let c = 0; c < C; c++) {
        mag += waitRate[c] * Math.abs(H[padded + padStrides[c]] - h[x]);
        err += waitRate[c] * (padErr[padded + padStrides[c]] + padIn[padded + padStrides[c]] + (inputs ? unit * Math.abs(h[x]) : 0));
      }
      worst = bound(C, idleKappa, 1, mag, err);
    }
    for (let a = 1; a < actions; a++) {
      if (actionBatch[a] > n[actionClass[a]]) continue;
      let mag = 0;
      let err = 0;
      let L = 0;
      for (let r = rowStart[a]; r < rowStart[a + 1]; r++) {
        const hb = padded + shift[a] + rowOffset[r];
        L += rowLength[r];
        for (let e = 0; e < rowLength[r]; e++) {
          mag += probs[rowValue[r] + e] * Math.abs(H[hb + e] - h[x]);
          err += probs[rowValue[r] + e] * (padErr[hb + e] + padIn[hb + e] + (inputs ? unit * Math.abs(h[x]) : 0));
        }
      }
      worst = Math.max(worst, bound(L, kappa[a], ratio[a], mag, err));
    }
    out[x] = worst;
  }
  return out;
}

describe(`the joint Bellman step in double-float on the GPU${gpu.skip}`, () => {
  it.skipIf(!gpu.ctx).each(STEP_CASES)('$name: the df64 step and its Odoni bounds agree with the CPU f64 step within 2^-36 of the gap, the same kernels in f32 do not', async ({ cls, S }) => {
    const model = compileClasses(validateClassesScenario(scenarioOf(cls, 40, 1e-3)).params, S);
    const h = nearFixedPoint(model);
    const gap = new Float64Array(model.states);
    const policy = new Int32Array(model.states);
    classesStep(model, h, gap, policy, stepScratch(model));
    const lower = Math.min(...gap);
    const upper = Math.max(...gap);
    const scale = Math.max(...Array.from(gap, Math.abs));
    const err: Record<string, number> = {};
    const differ: Record<string, number> = {};
    for (const real of ['df64', 'f32'] as const) {
      const r = await jointStepOnGpu(gpu.ctx!, model, h, real);
      err[`${real} values`] = Math.max(...Array.from(gap, (g, x) => Math.abs(r.gap[x] - g))) / scale;
      differ[real] = Array.from(policy).filter((a, x) => a !== r.policy[x]).length;
      err[`${real} bounds`] = Math.max(Math.abs(r.lower - lower), Math.abs(r.upper - upper)) / scale;
      // The device's reduction is the min and max of the gap it computed.
      expect(r.lower).toBe(Math.min(...r.gap));
      expect(r.upper).toBe(Math.max(...r.gap));
    }
    console.log(`max |GPU − CPU f64| / max |gap| (${model.states} states, width ${((upper - lower) / scale).toExponential(2)}): ${Object.entries(err).map(([k, v]) => `${k} ${v.toExponential(2)} (2^${Math.log2(v).toFixed(1)})`).join(', ')}; greedy actions unlike the CPU's: ${JSON.stringify(differ)}`);
    // u² = 2^-48 per operation over a few hundred terms a state is ~2^-40; 2^-36 leaves 16× (docs/gpu.md, "df64").
    expect(err['df64 values']).toBeLessThan(2 ** -36);
    expect(err['df64 bounds']).toBeLessThan(2 ** -36);
    // The same kernels in f32 are far off: the comparison tells the two types apart.
    expect(err['f32 values']).toBeGreaterThan(2 ** -30);
  });
  it.skipIf(!gpu.ctx)('gamma beside exponential (kernel rows): every df64 value lies within the a priori rounding bound of the CPU f64 value (the margin a GPU-only certificate would add)', async () => {
    const { cls, S } = STEP_CASES[1];
    const model = compileClasses(validateClassesScenario(scenarioOf(cls, 40, 1e-3)).params, S);
    expect(Array.from(model.separable).every((v) => v === 0)).toBe(true);
    const h = nearFixedPoint(model);
    const gap = new Float64Array(model.states);
    classesStep(model, h, gap, new Int32Array(model.states), stepScratch(model));
    const r = await jointStepOnGpu(gpu.ctx!, model, h, 'df64');
    const df = roundingBound(model, h, U2, true);
    const f64 = roundingBound(model, h, 2 ** -53, false);
    let used = 0;
    gap.forEach((g, x) => {
      const e = Math.abs(r.gap[x] - g);
      expect(e).toBeLessThanOrEqual(df[x] + f64[x]);
      used = Math.max(used, e / (df[x] + f64[x]));
    });
    const margin = Math.max(...roundingBound(model, h, U2, false));
    console.log(`a priori df64 margin E = ${margin.toExponential(2)} (${(margin / Math.max(...gap)).toExponential(2)} of the gap); measured errors use at most ${(100 * used).toFixed(1)} % of their state's bound`);
  });
});

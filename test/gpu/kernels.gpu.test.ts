import { afterAll, describe, expect, it } from 'vitest';
import { compileModel, type CompiledModel } from '../../src/model/compile.js';
import { validateScenario } from '../../src/model/validate.js';
import { bellmanStep } from '../../src/policy/greedy.js';
import { releaseGpu } from '../../src/solve/gpu/device.js';
import { DEFAULT_FLAGS, type GpuFlags } from '../../src/solve/gpu/flags.js';
import { bellmanSweepKernel, normalizeKernel } from '../../src/solve/gpu/kernels.js';
import { stageTailCoef, stageUsable, unstableFirst } from '../../src/solve/gpu/pack.js';
import { batchedRvi } from '../../src/solve/gpu/rvi.js';
import { ShaderError } from '../../src/solve/gpu/shaderSource.js';
import { rng } from '../helpers/random.js';
import { specScenario } from '../helpers/scenarios.js';
import { gpuForTests } from './gpuEnv.js';

const gpu = await gpuForTests();
afterAll(releaseGpu);

function model(raw: object, S: number): CompiledModel {
  return compileModel(validateScenario(raw).params, S);
}

/** Models of different S, B and arrival laws, packed together in every test. */
const MODELS = [
  model(specScenario(4000, 1e-3), 70),
  model({ ...specScenario(1200, 1e-4), maxBatchSize: 8, serviceTime: { table: { values: [2, 2.3, 2.5, 2.9, 3.1, 3.4, 3.6, 4].map((x) => x / 1000) }, distribution: 'GAMMA', cv: 0.7 } }, 40),
  model({ ...specScenario(2000, 1e-4), serviceTime: { linear: { perItem: 0.0001438, base: 0.0018874 }, distribution: 'EXPONENTIAL' } }, 100),
];

/** Relative-value-like start: increasing and convex, with noise. */
function startValues(m: CompiledModel, seed: number): Float64Array {
  const r = rng(seed);
  const h = new Float64Array(m.S + 1);
  for (let s = 1; s <= m.S; s++) h[s] = h[s - 1] + (m.costSlope / (m.tau * m.rates[0])) * s * (0.5 + r());
  return h;
}

/** Value of one action at h, in f64 (the CPU twin of serve_value / the wait branch). */
function actionValue(m: CompiledModel, h: Float64Array, s: number, a: number): number {
  const hold = m.costSlope * s;
  if (a === 0) return hold + m.kappa[0] + m.tau * m.rates[0] * (h[s + 1] - h[s]);
  const j0 = s - a + m.pmfOffset[a];
  const nIn = Math.min(m.pmfLength[a], m.S - j0 + 1);
  let acc = 0;
  for (let i = 0; i < nIn; i++) acc += m.pmf[m.pmfStart[a] + i] * h[j0 + i];
  if (s >= m.tailFirstState[a]) {
    const r = 3 * (m.tailStart[a] + s - m.tailFirstState[a]);
    acc += m.tailCoef[r] * h[m.S] + m.tailCoef[r + 1] * h[m.S - 1] + m.tailCoef[r + 2] * h[m.S - 2];
  }
  return hold + m.kappa[a] + (m.tau / m.sojourn[a]) * (acc - h[s]);
}

/**
 * The f32 stage's Bellman step in f64: the minimum over its action set (pack.ts: stageUsable)
 * with its tail (stageTailCoef), and with `fixed`, that action where it is in the set (an
 * evaluation sweep).
 */
function stageStep(model: CompiledModel, h: Float64Array, fixed?: Int32Array): { gap: Float64Array; policy: Int32Array } {
  const unstable = Int32Array.from({ length: model.B + 1 }, (_, b) => (b === 0 ? 0 : unstableFirst(model, b)));
  const from = Math.max(...unstable);
  const m = { ...model, tailCoef: stageTailCoef(model, from) };
  const gap = new Float64Array(m.S + 1);
  const policy = new Int32Array(m.S + 1);
  for (let s = 0; s <= m.S; s++) {
    const f = fixed?.[s];
    if (f !== undefined && (f === 0 ? s < m.S : stageUsable(unstable, from, m.B, s, f))) {
      gap[s] = actionValue(m, h, s, f);
      policy[s] = f;
      continue;
    }
    let best = Infinity;
    for (let a = s < m.S ? 0 : 1; a <= Math.min(s, m.B); a++) {
      if (a > 0 && !stageUsable(unstable, from, m.B, s, a)) continue;
      const v = actionValue(m, h, s, a);
      if (v < best) {
        best = v;
        policy[s] = a;
      }
    }
    gap[s] = best;
  }
  return { gap, policy };
}

const oneSweep: GpuFlags = { ...DEFAULT_FLAGS, BATCHWISE_GPU_EVAL_SWEEPS: 0, BATCHWISE_GPU_CYCLES_PER_CHECK: 1, BATCHWISE_GPU_MAX_SWEEPS: 1 };

describe(`WGSL kernels against the f64 CPU step${gpu.skip}`, () => {
  it.skipIf(!gpu.ctx)('one Bellman sweep + normalisation + bounds equal the f64 step, for every scenario of a batch', async () => {
    const starts = MODELS.map((m, i) => startValues(m, i + 1));
    const res = await batchedRvi(gpu.ctx!, MODELS.map((m, i) => ({ model: m, warm: { values: starts[i] }, tolerance: 1e-9 })), { flags: oneSweep });
    MODELS.forEach((m, i) => {
      const h = starts[i];
      const { gap, policy } = stageStep(m, h);
      // The reference itself: below the first left-out row it is the model's own Bellman step.
      const full = { gap: new Float64Array(m.S + 1), policy: new Int32Array(m.S + 1) };
      bellmanStep(m, h, full.gap, full.policy);
      const firstOut = Math.min(...Array.from({ length: m.B }, (_, b) => unstableFirst(m, b + 1)));
      for (let s = 0; s < firstOut; s++) expect(Math.abs(gap[s] - full.gap[s])).toBeLessThanOrEqual(1e-12 * Math.abs(full.gap[s]));
      const r = res[i];
      expect(r.sweeps).toBe(1);
      const scale = Math.max(...gap.map(Math.abs));
      expect(Math.abs(r.lower - Math.min(...gap))).toBeLessThan(1e-5 * scale);
      expect(Math.abs(r.upper - Math.max(...gap))).toBeLessThan(1e-5 * scale);
      let disagree = 0;
      for (let s = 0; s <= m.S; s++) {
        // h ← h + gap − gap(0), compared as the change (h itself is much larger than the step).
        const want = gap[s] - gap[0];
        expect(Math.abs(r.values![s] - h[s] - want)).toBeLessThan(1e-5 * scale + 2e-7 * Math.abs(h[s]));
        if (r.policy![s] !== policy[s]) {
          disagree++;
          // Only an f32 near-tie may flip: the GPU's action must be as good to f32 precision.
          expect(actionValue(m, h, s, r.policy![s]) - gap[s]).toBeLessThan(1e-5 * scale);
        }
      }
      expect(disagree).toBeLessThanOrEqual(1);
    });
  });

  it.skipIf(!gpu.ctx)('an evaluation sweep applies the stored policy (minimum where it is out of the set), then a Bellman sweep', async () => {
    const m = MODELS[0];
    const h = startValues(m, 9);
    const p = Int32Array.from({ length: m.S + 1 }, (_, s) => (s < 10 ? 0 : s % 3 === 0 ? Math.min(s, m.B) : Math.min(s, 5)));
    const flags = { ...oneSweep, BATCHWISE_GPU_EVAL_SWEEPS: 1, BATCHWISE_GPU_MAX_SWEEPS: 2 };
    const [r] = await batchedRvi(gpu.ctx!, [{ model: MODELS[0], warm: { values: h, policy: p }, tolerance: 1e-9 }], { flags });
    // CPU reference of the same two steps.
    const e = stageStep(m, h, p).gap;
    const h1 = h.map((v, s) => v + e[s] - e[0]);
    const { gap } = stageStep(m, h1);
    const scale = Math.max(...gap.map(Math.abs), ...e.map(Math.abs));
    expect(r.sweeps).toBe(2);
    for (let s = 0; s <= m.S; s++) {
      expect(Math.abs(r.values![s] - h[s] - (e[s] - e[0] + gap[s] - gap[0]))).toBeLessThan(2e-5 * scale + 4e-7 * Math.abs(h[s]));
    }
    expect(Math.abs(r.lower - Math.min(...gap))).toBeLessThan(2e-5 * scale);
  });

  it.skipIf(!gpu.ctx)('folds dispatches into 2-D past the per-dimension limit with the same results', async () => {
    const jobs = MODELS.map((m, i) => ({ model: m, warm: { values: startValues(m, 20 + i) }, tolerance: 1e-9 }));
    const flat = await batchedRvi(gpu.ctx!, jobs, { flags: oneSweep });
    const folded = await batchedRvi(gpu.ctx!, jobs, { flags: { ...oneSweep, BATCHWISE_GPU_MAX_WORKGROUPS_PER_DIMENSION: 2 } });
    folded.forEach((r, i) => {
      expect(Array.from(r.values!)).toEqual(Array.from(flat[i].values!));
      expect(Array.from(r.policy!)).toEqual(Array.from(flat[i].policy!));
      expect([r.lower, r.upper]).toEqual([flat[i].lower, flat[i].upper]);
    });
  });

  it.skipIf(!gpu.ctx)('solving the same batch twice allocates no new buffers or pipelines', async () => {
    const jobs = MODELS.map((m) => ({ model: m, tolerance: 1e-9 }));
    const flags = { ...DEFAULT_FLAGS, BATCHWISE_GPU_MAX_SWEEPS: 66 };
    const runner = gpu.ctx!.runner;
    await batchedRvi(gpu.ctx!, jobs, { flags });
    const first = runner.pool.stats();
    const pipelines = runner.pipelineCount;
    expect(first.numBytesUsed).toBe(0);
    expect(first.numBytesAllocated).toBeGreaterThan(0);
    await batchedRvi(gpu.ctx!, jobs, { flags });
    expect(runner.pool.stats()).toEqual(first);
    expect(runner.pipelineCount).toBe(pipelines);
  });

  it.skipIf(!gpu.ctx)('a shader that does not compile is reported with its name and the line', async () => {
    const broken = { ...normalizeKernel(64), name: 'broken_kernel', shaderKey: 'broken_kernel:wg64' };
    const body = 'fn run(wg: u32, lid: u32) {\n  let x: u32 = 1.5;\n}\n';
    const err = await gpu.ctx!.runner.pipeline(broken, body).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ShaderError);
    expect((err as ShaderError).shader).toBe('broken_kernel');
    expect((err as Error).message).toMatch(/^shader broken_kernel: does not compile \(broken_kernel:wg64\):\nline \d+:\d+: /);
    const tooWide = await gpu.ctx!.runner.pipeline(bellmanSweepKernel(1 << 16)).catch((e: unknown) => e);
    expect((tooWide as Error).message).toMatch(/^shader bellman_sweep: workgroup size 65536 exceeds the device limit \d+/);
  });
});

import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { compileModel, type CompiledModel } from '../../src/model/compile.js';
import { AbortError } from '../../src/model/errors.js';
import type { Scenario } from '../../src/model/scenario.js';
import { validateScenario } from '../../src/model/validate.js';
import { bellmanStep } from '../../src/policy/greedy.js';
import { releaseGpu } from '../../src/solve/gpu/device.js';
import { DEFAULT_FLAGS, type GpuFlags } from '../../src/solve/gpu/flags.js';
import { gpuLogger, setGpuLogger } from '../../src/solve/gpu/log.js';
import { batchedRvi } from '../../src/solve/gpu/rvi.js';
import { registerGpuProvider } from '../../src/solve/backends.js';
import { cpuPolicyIteration } from '../../src/solve/cpu/pi.js';
import { createGpuProvider } from '../../src/solve/gpu/provider.js';
import type { SolveResult } from '../../src/solve/result.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import type { SolverProgress } from '../../src/solve/types.js';
import { rng } from '../helpers/random.js';
import { SPEC_CASES, specCaseScenario } from '../helpers/specTable.js';
import { gpuForTests } from './gpuEnv.js';
import { captureLogs, destroyAfterFirstSubmit, expectGpuOffRefuses } from './gpuTestHelpers.js';

const gpu = await gpuForTests();
afterAll(releaseGpu);
const defaultLogger = gpuLogger();
afterEach(() => {
  registerGpuProvider(undefined);
  setGpuLogger(defaultLogger);
});

/** Two phases from a burst profile: B = 8, bursts above capacity. */
const TWO_PHASE: Scenario = {
  arrivalRate: 0,
  maxBatchSize: 8,
  serviceTime: { linear: { perItem: 0.0004, base: 0.001 }, distribution: 'DETERMINISTIC' },
  power: { idleWatts: 30, busyLinear: { perItem: 5, base: 60 } },
  objective: { latencyWeight: 1, powerWeight: 5e-4 },
  arrivalProcess: { burst: { meanRate: 1200, peakToMean: 2, meanBurstSeconds: 0.02, meanGapSeconds: 0.08 } },
};

/** Three phases, one silent, the busiest above capacity for 10 ms at a time; B = 4, exponential service. */
const THREE_PHASE: Scenario = {
  arrivalRate: 0,
  maxBatchSize: 4,
  serviceTime: { linear: { perItem: 0.0005, base: 0.001 }, distribution: 'EXPONENTIAL' },
  power: { idleWatts: 30, busyLinear: { perItem: 5, base: 60 } },
  objective: { latencyWeight: 1, powerWeight: 2e-4 },
  arrivalProcess: { mmpp: { rates: [0, 600, 1600], generator: [-40, 30, 10, 20, -25, 5, 30, 70, -100] } },
};

/** Per-phase action tables, phase by phase, levels 0..S−1 (the action at S is decided by the tail alone). */
function phaseTables(r: SolveResult): number[][] {
  const S = r.solver.maxQueue;
  return r.policy.phases!.map((p) => Array.from(p.actions).slice(0, S));
}

/** The contract of the GPU path (as test/gpu/solveCompare.ts for Poisson): same policy, same exact g, its own f64 certificate. */
function expectSameAsCpuMmpp(onGpu: SolveResult, onCpu: SolveResult): void {
  expect(onGpu.solver.maxQueue).toBe(onCpu.solver.maxQueue);
  expect(phaseTables(onGpu)).toEqual(phaseTables(onCpu));
  expect(onGpu.policy.phases!.map((p) => p.controlLimit)).toEqual(onCpu.policy.phases!.map((p) => p.controlLimit));
  expect(Math.abs(onGpu.averageCost - onCpu.averageCost)).toBeLessThanOrEqual(1e-9 * onCpu.averageCost);
  expect(onGpu.averageCostLower).toBeLessThanOrEqual(onGpu.averageCost * (1 + 1e-9));
  expect(onGpu.averageCostUpper).toBeGreaterThanOrEqual(onGpu.averageCost * (1 - 1e-9));
  expect(onGpu.averageCostUpper - onGpu.averageCostLower).toBeLessThanOrEqual(1e-9 * onGpu.averageCostLower);
  expect(onGpu.solver.backend).toBe('webgpu');
  expect(onGpu.solver.adapter).toBe(gpu.ctx!.adapterName);
  expect(onGpu.solver.method).toMatch(/^webgpu-mpi-f32\+policy-iteration/);
  expect(onGpu.solver.gpuIterations).toBeGreaterThan(0);
  expect(onGpu.solver.polishSteps).toBeGreaterThanOrEqual(1);
}

function compiled(raw: Scenario, S: number): CompiledModel {
  const { params } = validateScenario(raw);
  return compileModel(params, S);
}

describe(`MMPP models on the GPU (f32 MPI + f64 polish)${gpu.skip}`, () => {
  it.skipIf(!gpu.ctx)('one f32 Bellman sweep equals the f64 bellmanStep (values, bounds, policy)', async () => {
    for (const [raw, S] of [
      [THREE_PHASE, 40],
      [TWO_PHASE, 70],
    ] as const) {
      const m = compiled(raw, S);
      const n = (S + 1) * m.M;
      // Increasing, convex in s, different per phase, with noise: like relative values.
      const r = rng(7);
      const h = new Float64Array(n);
      for (let s = 1; s <= S; s++) for (let j = 0; j < m.M; j++) h[s * m.M + j] = h[(s - 1) * m.M + j] + (m.costSlope / m.tau) * 1e-3 * s * (0.5 + r()) + (s === 1 ? j * 0.1 : 0);
      // Every action allowed (no row left out), one Bellman sweep and its normalisation.
      const flags: GpuFlags = { ...DEFAULT_FLAGS, BATCHWISE_GPU_EVAL_SWEEPS: 0, BATCHWISE_GPU_MAX_SWEEPS: 1, BATCHWISE_GPU_MAX_ROW_EXCESS: Number.POSITIVE_INFINITY };
      const [res] = await batchedRvi(gpu.ctx!, [{ model: m, warm: { values: h }, tolerance: 0 }], { flags });
      expect(res.sweeps).toBe(1);
      const gap = new Float64Array(n);
      const policy = new Int32Array(n);
      bellmanStep(m, h, gap, policy);
      let lo = Infinity;
      let hi = -Infinity;
      let scale = 0;
      for (let x = 0; x < n; x++) {
        lo = Math.min(lo, gap[x]);
        hi = Math.max(hi, gap[x]);
        scale = Math.max(scale, Math.abs(h[x]), Math.abs(gap[x]));
      }
      expect(Math.abs(res.lower - lo)).toBeLessThanOrEqual(1e-5 * scale);
      expect(Math.abs(res.upper - hi)).toBeLessThanOrEqual(1e-5 * scale);
      let differ = 0;
      for (let x = 0; x < n; x++) {
        expect(Math.abs(res.values![x] - (h[x] + gap[x] - gap[0]))).toBeLessThanOrEqual(1e-5 * scale);
        if (res.policy![x] !== policy[x]) differ++;
      }
      // f32 may break a near-tie the other way; nothing more.
      expect(differ).toBeLessThanOrEqual(Math.ceil(0.02 * n));
    }
  });

  it.skipIf(!gpu.ctx)('an f32 evaluation sweep of a stored policy, then a Bellman sweep, equal their f64 counterparts', async () => {
    const S = 50;
    const m = compiled(THREE_PHASE, S);
    const M = m.M;
    const n = (S + 1) * M;
    const h = new Float64Array(n);
    for (let s = 1; s <= S; s++) for (let j = 0; j < M; j++) h[s * M + j] = h[(s - 1) * M + j] + (m.costSlope / m.tau) * 2e-3 * s * (1 + 0.3 * j);
    // Wait below a phase-dependent limit, else serve min(s, B): not the greedy policy at h.
    const p = new Int32Array(n);
    for (let s = 0; s <= S; s++) for (let j = 0; j < M; j++) p[s * M + j] = s < 2 + j && s < S ? 0 : Math.min(s, m.B);
    // f64 reference written from the layout of docs/mmpp.md (not bellmanStep).
    const value = (hv: Float64Array, s: number, j: number, a: number): number => {
      const x = s * M + j;
      if (a === 0) {
        let d = m.rates[j] * (hv[x + M] - hv[x]);
        for (let k = 0; k < M; k++) if (k !== j) d += m.process.generator[j * M + k] * (hv[s * M + k] - hv[x]);
        return m.costSlope * s + m.kappa[0] + m.tau * d;
      }
      const L = m.pmfLength[a];
      const j0 = s - a + m.pmfOffset[a];
      const nIn = Math.min(L, S - j0 + 1);
      let e = 0;
      for (let i = 0; i < nIn * M; i++) e += m.pmf[m.pmfStart[a] + j * L * M + i] * hv[j0 * M + i];
      if (s >= m.tailFirstState[a]) {
        const r = ((m.tailStart[a] + s - m.tailFirstState[a]) * M + j) * M * 3;
        for (let k = 0; k < M; k++) e += m.tailCoef[r + 3 * k] * hv[S * M + k] + m.tailCoef[r + 3 * k + 1] * hv[(S - 1) * M + k] + m.tailCoef[r + 3 * k + 2] * hv[(S - 2) * M + k];
      }
      return m.costSlope * s + m.kappa[a * M + j] + (m.tau / m.sojourn[a * M + j]) * (e - hv[x]);
    };
    const g1 = new Float64Array(n);
    for (let x = 0; x < n; x++) g1[x] = value(h, Math.floor(x / M), x % M, p[x]);
    const h1 = h.map((v, x) => v + g1[x] - g1[0]);
    const g2 = new Float64Array(n);
    const best = new Int32Array(n);
    for (let x = 0; x < n; x++) {
      const s = Math.floor(x / M);
      g2[x] = Infinity;
      for (let a = s < S ? 0 : 1; a <= Math.min(s, m.B); a++) {
        const v = value(h1, s, x % M, a);
        if (v < g2[x]) [g2[x], best[x]] = [v, a];
      }
    }
    const flags: GpuFlags = { ...DEFAULT_FLAGS, BATCHWISE_GPU_EVAL_SWEEPS: 1, BATCHWISE_GPU_CYCLES_PER_CHECK: 1, BATCHWISE_GPU_MAX_SWEEPS: 2, BATCHWISE_GPU_MAX_ROW_EXCESS: Number.POSITIVE_INFINITY };
    const [res] = await batchedRvi(gpu.ctx!, [{ model: m, warm: { values: h, policy: p }, tolerance: 0 }], { flags });
    expect(res.sweeps).toBe(2);
    let scale = 0;
    for (let x = 0; x < n; x++) scale = Math.max(scale, Math.abs(h1[x]), Math.abs(g2[x]));
    expect(Math.abs(res.lower - Math.min(...g2))).toBeLessThanOrEqual(1e-5 * scale);
    expect(Math.abs(res.upper - Math.max(...g2))).toBeLessThanOrEqual(1e-5 * scale);
    let differ = 0;
    for (let x = 0; x < n; x++) {
      expect(Math.abs(res.values![x] - (h1[x] + g2[x] - g2[0]))).toBeLessThanOrEqual(1e-5 * scale);
      if (res.policy![x] !== best[x]) differ++;
    }
    expect(differ).toBeLessThanOrEqual(Math.ceil(0.02 * n));
  });

  it.skipIf(!gpu.ctx)('AUTO: the GPU where the AUTO rule says it pays off (threshold 0 here), the CPU at the default software threshold (∞)', async () => {
    registerGpuProvider(createGpuProvider(cpuPolicyIteration, { flags: { ...DEFAULT_FLAGS, BATCHWISE_GPU_AUTO_MIN_WORK_SOFTWARE: 0, BATCHWISE_GPU_AUTO_MIN_WORK_HARDWARE: 0 } }));
    const auto = await solveScenario(THREE_PHASE, { backend: 'AUTO' });
    expect(auto.solver.backend).toBe('webgpu');
    registerGpuProvider(createGpuProvider(cpuPolicyIteration, { flags: { ...DEFAULT_FLAGS, BATCHWISE_GPU_AUTO_MIN_WORK_HARDWARE: 0 } }));
    const expected = gpu.ctx!.kind === 'software' ? 'cpu' : 'webgpu';
    expect((await solveScenario(THREE_PHASE, { backend: 'AUTO' })).solver.backend).toBe(expected);
  });

  it.skipIf(!gpu.ctx)('M = 2 (burst profile, B = 8): same per-phase policy and g as the CPU MMPP solver, certified', async () => {
    const onGpu = await solveScenario(TWO_PHASE, { backend: 'GPU' });
    const onCpu = await solveScenario(TWO_PHASE, { backend: 'CPU' });
    expect(onGpu.policy.phases!.length).toBe(2);
    expectSameAsCpuMmpp(onGpu, onCpu);
  });

  it.skipIf(!gpu.ctx)('M = 3 (a silent phase, exponential service, B = 4): same per-phase policy and g as the CPU, certified', async () => {
    const onGpu = await solveScenario(THREE_PHASE, { backend: 'GPU' });
    const onCpu = await solveScenario(THREE_PHASE, { backend: 'CPU' });
    expect(onGpu.policy.phases!.length).toBe(3);
    expectSameAsCpuMmpp(onGpu, onCpu);
  });

  it.skipIf(!gpu.ctx)('growing S from a low start (gamma service, M = 2): each GPU round warm-started, same result as the CPU', async () => {
    const gamma: Scenario = { ...TWO_PHASE, serviceTime: { ...TWO_PHASE.serviceTime, distribution: 'GAMMA', cv: 0.7 } };
    const onGpu = await solveScenario(gamma, { backend: 'GPU', initialMaxQueue: 40 });
    const onCpu = await solveScenario(gamma, { backend: 'CPU', initialMaxQueue: 40 });
    // S grows to the solved policy's own tail quantile; at S = 40 the GPU-started and the CPU
    // policies may differ (both are optimal for a truncation too short), so the next S may too.
    for (const r of [onGpu, onCpu]) {
      expect(r.solver.maxQueueTried.length).toBeGreaterThan(1);
      expect(r.solver.maxQueueTried[0]).toBe(40);
      expect(r.solver.tailMass).toBeLessThan(1e-9);
    }
    expect(Math.abs(onGpu.averageCost - onCpu.averageCost)).toBeLessThanOrEqual(1e-9 * onCpu.averageCost);
    // At the S the GPU solve ended on, the CPU finds the same policy and g.
    const atS = await solveScenario({ ...gamma, solver: { maxQueue: onGpu.solver.maxQueue } }, { backend: 'CPU' });
    expectSameAsCpuMmpp(onGpu, atS);
  });

  it.skipIf(!gpu.ctx)('M = 1 equals the Poisson GPU result (docs/model.md §6, λ = 4000, w_pow = 1e-3)', async () => {
    const c = SPEC_CASES.find((x) => x.arrivalRate === 4000 && x.powerWeight === 1e-3 && x.distribution === 'DETERMINISTIC') ?? SPEC_CASES[3];
    const poisson = specCaseScenario(c);
    const asMmpp: Scenario = { ...poisson, arrivalProcess: { mmpp: { rates: [c.arrivalRate], generator: [0] } } };
    const viaMmpp = await solveScenario(asMmpp, { backend: 'GPU' });
    const viaPoisson = await solveScenario(poisson, { backend: 'GPU' });
    expect(viaMmpp.solver.backend).toBe('webgpu');
    expect(viaPoisson.solver.backend).toBe('webgpu');
    expect(viaMmpp.solver.maxQueue).toBe(viaPoisson.solver.maxQueue);
    const S = viaPoisson.solver.maxQueue;
    expect(Array.from(viaMmpp.policy.actions).slice(0, S)).toEqual(Array.from(viaPoisson.policy.actions).slice(0, S));
    expect(viaMmpp.policy.controlLimit).toBe(viaPoisson.policy.controlLimit);
    expect(Math.abs(viaMmpp.averageCost - viaPoisson.averageCost)).toBeLessThanOrEqual(1e-12 * viaPoisson.averageCost);
    expect(viaMmpp.averageCostLower).toBeLessThanOrEqual(viaMmpp.averageCost * (1 + 1e-9));
    expect(viaMmpp.averageCostUpper).toBeGreaterThanOrEqual(viaMmpp.averageCost * (1 - 1e-9));
  });

  it.skipIf(!gpu.ctx)('progress comes from the f64 polish with the likeliest phase’s policy (length S+1)', async () => {
    const seen: SolverProgress[] = [];
    const r = await solveScenario(THREE_PHASE, { backend: 'GPU', onProgress: (p) => seen.push(p) });
    expect(seen.length).toBeGreaterThan(0);
    const last = seen[seen.length - 1];
    expect(last.policy.length).toBe(r.solver.maxQueue + 1);
    expect(last.lower).toBeLessThanOrEqual(last.upper);
  });

  it.skipIf(!gpu.ctx)('a cancelled solve stops between GPU submits with AbortError', async () => {
    const ac = new AbortController();
    let submits = 0;
    registerGpuProvider(
      createGpuProvider(cpuPolicyIteration, {
        hooks: {
          afterSubmit: () => {
            submits++;
            ac.abort();
          },
        },
      }),
    );
    await expect(solveScenario(THREE_PHASE, { backend: 'GPU', signal: ac.signal })).rejects.toBeInstanceOf(AbortError);
    expect(submits).toBe(1);
  });

  it.skipIf(!gpu.ctx)('a device lost mid-solve: the solve finishes on the CPU with the same answer', async () => {
    const logs = captureLogs();
    const hooks = destroyAfterFirstSubmit();
    registerGpuProvider(createGpuProvider(cpuPolicyIteration, { hooks }));
    const r = await solveScenario(THREE_PHASE, { backend: 'GPU' });
    const onCpu = await solveScenario(THREE_PHASE, { backend: 'CPU' });
    expect(hooks.fired).toBeGreaterThanOrEqual(1);
    expect(r.solver.backend).toBe('cpu');
    expect(phaseTables(r)).toEqual(phaseTables(onCpu));
    expect(Math.abs(r.averageCost - onCpu.averageCost)).toBeLessThanOrEqual(1e-9 * onCpu.averageCost);
    const warned = logs.find((l) => l.msg === 'GPU stage failed; finishing the solve on the CPU');
    expect(warned?.level).toBe(40);
    expect(warned?.err?.message).toMatch(/device lost|destroyed|lost/i);
    // The manager noticed the loss: the next GPU solve runs on a fresh device.
    registerGpuProvider(undefined);
    expect((await solveScenario(THREE_PHASE, { backend: 'GPU' })).solver.backend).toBe('webgpu');
  });

  it('BATCHWISE_GPU=off refuses backend GPU for MMPP with the reason, and AUTO uses the CPU', async () => {
    await expectGpuOffRefuses(THREE_PHASE);
  });
});

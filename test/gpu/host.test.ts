import { describe, expect, it } from 'vitest';
import { compileModel, type CompiledModel } from '../../src/model/compile.js';
import { validateScenario } from '../../src/model/validate.js';
import { bellmanStep } from '../../src/policy/greedy.js';
import { gpuMightPayOff, gpuPaysOff, sweepWork } from '../../src/solve/gpu/autoRule.js';
import { BatchCollector } from '../../src/solve/gpu/collector.js';
import { DEFAULT_FLAGS, readFlags } from '../../src/solve/gpu/flags.js';
import { FALLBACK_ROW_EXCESS, ROW_EXCESS, largestBinding, packBatch, rowExcess, splitForLimits, stageTailCoef, stageUsable, unstableFirst, type PackedBatch } from '../../src/solve/gpu/pack.js';
import type { GpuJointJob } from '../../src/solve/gpu/jointRvi.js';
import type { GpuRviJob } from '../../src/solve/gpu/rvi.js';
import type { ClassesModel } from '../../src/model/classes/compile.js';
import { StopTracker } from '../../src/solve/gpu/stopRule.js';
import { rng } from '../helpers/random.js';
import { specScenario } from '../helpers/scenarios.js';

function model(raw: object, S: number): CompiledModel {
  return compileModel(validateScenario(raw).params, S);
}

/**
 * The greedy sweep written over the packed arrays as bellman_sweep.wgsl indexes them (in
 * f64, over every action, flat states x = s·M + j): if the packing put any offset in the wrong
 * place, this disagrees with bellmanStep.
 */
function sweepPacked(p: PackedBatch, sc: number, h: Float64Array): { gap: Float64Array; policy: Int32Array } {
  const get = (field: string): number => p.scenarios.get(sc, field);
  const [S, M, B, base, ao, kb, rb] = ['last', 'phases', 'max_batch', 'state_offset', 'action_offset', 'kappa_base', 'rates_base'].map(get);
  const n = (S + 1) * M;
  const gap = new Float64Array(n);
  const policy = new Int32Array(n);
  for (let x = 0; x < n; x++) {
    expect(p.stateScenario[base + x]).toBe(sc);
    const s = Math.floor(x / M);
    const j = x % M;
    const hx = h[x];
    const hold = get('cost_slope') * s;
    let best = Infinity;
    if (s < S) {
      let drift = p.coef[rb + j] * (h[x + M] - hx);
      for (let jj = 0; jj < M; jj++) if (jj !== j) drift += p.coef[rb + M + j * M + jj] * (h[s * M + jj] - hx);
      best = hold + p.coef[kb + j] + drift;
    }
    let arg = 0;
    for (let b = 1; b <= Math.min(s, B); b++) {
      const a = (field: string): number => p.actions.get(ao + b - 1, field);
      const L = a('pmf_length');
      const j0 = s - b + a('pmf_offset');
      const nIn = Math.min(S - j0 + 1, L);
      let acc = 0;
      for (let e = 0; e < nIn * M; e++) acc += p.coef[a('pmf_start') + j * L * M + e] * (h[j0 * M + e] - hx);
      const tf = a('tail_first');
      if (s >= tf) {
        const r = a('tail_start') + ((s - tf) * M + j) * M * 3;
        for (let jj = 0; jj < M; jj++) {
          const c = r + 3 * jj;
          acc += p.coef[c] * (h[S * M + jj] - hx) + p.coef[c + 1] * (h[(S - 1) * M + jj] - hx) + p.coef[c + 2] * (h[(S - 2) * M + jj] - hx);
        }
      }
      const v = hold + p.coef[kb + b * M + j] + a('rate') * acc;
      if (v < best) {
        best = v;
        arg = b;
      }
    }
    gap[x] = best;
    policy[x] = arg;
  }
  return { gap, policy };
}

describe('packing a batch of different S and B', () => {
  const models = [
    model(specScenario(4000, 1e-3), 60),
    model({ ...specScenario(1200, 1e-4), maxBatchSize: 8, serviceTime: { table: { values: [2, 2.3, 2.5, 2.9, 3.1, 3.4, 3.6, 4].map((x) => x / 1000) }, distribution: 'GAMMA', cv: 0.7 } }, 25),
    model({ ...specScenario(2000, 1e-4), serviceTime: { linear: { perItem: 0.0001438, base: 0.0018874 }, distribution: 'EXPONENTIAL' } }, 90),
  ];
  const packed = packBatch(models);

  it('lays the scenarios end to end', () => {
    expect(packed.stateOffset).toEqual([0, 61, 87]);
    expect(packed.totalStates).toBe(61 + 26 + 91);
    expect(packed.actions.count).toBe(32 + 8 + 32);
    expect(packed.policy[61 + 20]).toBe(8); // default start: serve min(s, B)
    expect(packed.policy[5]).toBe(5);
  });

  it('gives the f64 Bellman step (over every action) when swept as the shader indexes it', () => {
    const r = rng(7);
    models.forEach((m, sc) => {
      const h = new Float64Array(m.S + 1);
      for (let s = 1; s <= m.S; s++) h[s] = h[s - 1] + m.costSlope * s * (0.5 + r()) * 40; // convex-ish, like relative values
      const ref = { gap: new Float64Array(m.S + 1), policy: new Int32Array(m.S + 1) };
      // Against the model with the stage's tail (serve-B rows lumped where nothing else is left).
      const from = packed.scenarios.get(sc, 'all_unstable_from');
      bellmanStep({ ...m, tailCoef: stageTailCoef(m, from) }, h, ref.gap, ref.policy);
      const got = sweepPacked(packed, sc, h);
      const scale = Math.max(...ref.gap.map(Math.abs));
      for (let s = 0; s <= m.S; s++) expect(Math.abs(got.gap[s] - ref.gap[s])).toBeLessThan(1e-5 * scale);
      const agree = ref.policy.filter((a, s) => a === got.policy[s]).length;
      expect(agree).toBeGreaterThanOrEqual(m.S); // f32 coefficients may flip a near tie at most
    });
  });

  it('takes warm values relative to state 0 and a usable warm policy', () => {
    const m = models[1];
    const values = Float64Array.from({ length: m.S + 1 }, (_, s) => 10 + s * s);
    const policy = Int32Array.from({ length: m.S + 1 }, (_, s) => (s < 3 ? 0 : Math.min(s, m.B)));
    const p = packBatch([m], [{ values, policy }]);
    expect(Array.from(p.h.subarray(0, 4))).toEqual([0, 1, 4, 9]);
    expect(Array.from(p.policy.subarray(0, 5))).toEqual([0, 0, 0, 3, 4]);
    // A policy that waits at S is not usable: the default start is taken instead.
    const bad = policy.slice();
    bad[m.S] = 0;
    expect(packBatch([m], [{ policy: bad }]).policy[2]).toBe(2);
  });

  it('leaves far-overflowing serve rows out of the f32 stage, keeping serve-B where nothing else is left', () => {
    const m = models[0];
    const unstable = Int32Array.from({ length: m.B + 1 }, (_, b) => (b === 0 ? 0 : unstableFirst(m, b)));
    const from = Math.max(...unstable);
    expect(packed.scenarios.get(0, 'all_unstable_from')).toBe(from);
    for (let b = 1; b <= m.B; b++) expect(packed.actions.get(b - 1, 'unstable_first')).toBe(unstable[b]);
    expect(from).toBeLessThanOrEqual(m.S); // at S every serve row passes S far in this case
    for (let s = 0; s <= m.S; s++) {
      const any = Array.from({ length: Math.min(s, m.B) }, (_, i) => stageUsable(unstable, from, m.B, s, i + 1)).some(Boolean);
      expect(any || (s === 0)).toBe(true); // a serve action is always left (s = 0 can only wait)
    }
    expect(stageUsable(unstable, from, m.B, m.S, m.B)).toBe(true);
    expect(stageUsable(unstable, from, m.B, m.S, 1)).toBe(false);
  });

  it('lumps the overflow of serve-B rows into S only where it is the last action left and far from stochastic', () => {
    // A gamma cv = 1.2 case where serving B at S has rate·excess ≈ 8.
    const m = model({ arrivalRate: 931.2, maxBatchSize: 7, serviceTime: { linear: { perItem: 0.0004, base: 0.002 }, distribution: 'GAMMA', cv: 1.17 }, power: { idleWatts: 40, busyLinear: { perItem: 3, base: 80 } }, objective: { latencyWeight: 1, powerWeight: 0.0014 } }, 263);
    const from = Math.max(...Array.from({ length: m.B }, (_, b) => unstableFirst(m, b + 1)));
    expect(rowExcess(m, m.S, m.B)).toBeGreaterThan(5);
    const t = stageTailCoef(m, from);
    let lumped = 0;
    for (let b = 1; b <= m.B; b++) {
      for (let s = m.tailFirstState[b]; s <= m.S; s++) {
        const r = 3 * (m.tailStart[b] + s - m.tailFirstState[b]);
        const same = t[r] === m.tailCoef[r] && t[r + 1] === m.tailCoef[r + 1] && t[r + 2] === m.tailCoef[r + 2];
        const shouldLump = b === m.B && s >= from && rowExcess(m, s, b) > FALLBACK_ROW_EXCESS;
        expect(same).toBe(!shouldLump);
        if (shouldLump) {
          lumped++;
          expect(t[r]).toBeCloseTo(m.tailCoef[r] + m.tailCoef[r + 1] + m.tailCoef[r + 2], 12);
          expect([t[r + 1], t[r + 2]]).toEqual([0, 0]);
        }
      }
    }
    expect(lumped).toBeGreaterThan(0);
  });

  it('finds where each serve row becomes too far from stochastic for value iteration', () => {
    const m = models[0];
    for (let b = 1; b <= m.B; b++) {
      const first = unstableFirst(m, b);
      expect(first).toBeGreaterThanOrEqual(m.tailFirstState[b]);
      // Excess row mass, written out here: rate × (Σ|coefficients| − 1) over pmf and tail.
      const excess = (s: number): number => {
        const j0 = s - b + m.pmfOffset[b];
        let abs = 0;
        for (let i = 0; i < Math.min(m.pmfLength[b], m.S - j0 + 1); i++) abs += m.pmf[m.pmfStart[b] + i];
        const r = 3 * (m.tailStart[b] + s - m.tailFirstState[b]);
        for (let i = 0; i < 3; i++) abs += Math.abs(m.tailCoef[r + i]);
        return (m.tau / m.sojourn[b]) * (abs - 1);
      };
      if (first <= m.S) expect(excess(first)).toBeGreaterThan(ROW_EXCESS * (1 - 1e-9));
      if (first - 1 >= m.tailFirstState[b]) expect(excess(first - 1)).toBeLessThanOrEqual(ROW_EXCESS * (1 + 1e-9));
    }
    expect(unstableFirst(m, 1)).toBeLessThanOrEqual(m.S); // serving 1 at S overflows by ~8: far from stochastic
  });

  it('splits batches that exceed one binding, keeping the order', () => {
    const groups = splitForLimits([...models, ...models], 150_000);
    expect(groups.flat()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(groups.length).toBeGreaterThan(1);
    expect(() => splitForLimits(models, 100)).toThrow('over the binding limit 100');
  });

  it('refuses a model exactly when its largest pooled buffer passes the limit (what a batched round filters on)', () => {
    for (const m of models) {
      expect(splitForLimits([m], largestBinding(m))).toEqual([[0]]);
      expect(() => splitForLimits([m], largestBinding(m) - 1)).toThrow('over the binding limit');
    }
  });
});

describe('packing Poisson and MMPP models into one batch (each with its own M)', () => {
  const arrivals = { rates: [0, 600, 1600], generator: [-40, 30, 10, 20, -25, 5, 30, 70, -100] };
  const threePhase = model({ ...specScenario(1000, 2e-4), arrivalRate: 0, maxBatchSize: 4, serviceTime: { linear: { perItem: 0.0005, base: 0.001 }, distribution: 'EXPONENTIAL' }, arrivalProcess: { mmpp: arrivals } }, 30);
  const twoPhase = model({ ...specScenario(1200, 5e-4), arrivalRate: 0, maxBatchSize: 8, serviceTime: { linear: { perItem: 0.0004, base: 0.001 }, distribution: 'GAMMA', cv: 0.7 }, arrivalProcess: { burst: { meanRate: 1200, peakToMean: 2, meanBurstSeconds: 0.02, meanGapSeconds: 0.08 } } }, 45);
  const poisson = model(specScenario(4000, 1e-3), 60);
  const models = [poisson, threePhase, twoPhase];
  const packed = packBatch(models);

  it('lays the flat (s, j) states of every scenario end to end', () => {
    expect([threePhase.M, twoPhase.M]).toEqual([3, 2]);
    expect(packed.states).toEqual([61, 31 * 3, 46 * 2]);
    expect(packed.stateOffset).toEqual([0, 61, 61 + 93]);
    expect(packed.totalStates).toBe(61 + 93 + 92);
    expect(models.map((_, i) => packed.scenarios.get(i, 'phases'))).toEqual([1, 3, 2]);
    expect(packed.policy[61 + 3 * 10 + 2]).toBe(4); // default start: serve min(s, B) in every phase
  });

  it('gives the f64 Bellman step of each model (Poisson and MMPP) when swept as the shader indexes it', () => {
    const r = rng(11);
    models.forEach((m, sc) => {
      const { S, M } = m;
      const h = new Float64Array((S + 1) * M);
      for (let s = 1; s <= S; s++) for (let j = 0; j < M; j++) h[s * M + j] = h[(s - 1) * M + j] + m.costSlope * s * (0.5 + r()) * 40 + (s === 1 ? 0.01 * j : 0);
      const ref = { gap: new Float64Array(h.length), policy: new Int32Array(h.length) };
      bellmanStep({ ...m, tailCoef: stageTailCoef(m, packed.scenarios.get(sc, 'all_unstable_from')) }, h, ref.gap, ref.policy);
      const got = sweepPacked(packed, sc, h);
      const scale = Math.max(...ref.gap.map(Math.abs));
      for (let x = 0; x < h.length; x++) expect(Math.abs(got.gap[x] - ref.gap[x])).toBeLessThan(1e-5 * scale);
      expect(ref.policy.filter((a, x) => a !== got.policy[x]).length).toBeLessThanOrEqual(Math.ceil(0.02 * h.length));
    });
  });

  it('takes MMPP warm values relative to (0, 0), and a warm policy only if no phase waits at S', () => {
    const m = twoPhase;
    const n = (m.S + 1) * m.M;
    const values = Float64Array.from({ length: n }, (_, x) => 5 + x);
    const policy = Int32Array.from({ length: n }, (_, x) => (Math.floor(x / 2) < 3 ? 0 : Math.min(Math.floor(x / 2), m.B)));
    const p = packBatch([poisson, m], [undefined, { values, policy }]);
    const at = p.stateOffset[1];
    expect(Array.from(p.h.subarray(at, at + 4))).toEqual([0, 1, 2, 3]);
    expect(Array.from(p.policy.subarray(at, at + 8))).toEqual([0, 0, 0, 0, 0, 0, 3, 3]);
    const bad = policy.slice();
    bad[n - 1] = 0; // phase 1 waits at S
    const q = packBatch([poisson, m], [undefined, { policy: bad }]);
    expect(q.policy[at + 2 * 2 + 1]).toBe(2);
  });

  it('leaves out a serve row (s, b) once any phase of it is far from stochastic', () => {
    const m = twoPhase;
    for (let b = 1; b <= m.B; b++) {
      const first = unstableFirst(m, b);
      expect(packed.actions.get(packed.scenarios.get(2, 'action_offset') + b - 1, 'unstable_first')).toBe(first);
      if (first <= m.S) expect(rowExcess(m, first, b)).toBeGreaterThan(ROW_EXCESS);
      if (first - 1 >= m.tailFirstState[b]) expect(rowExcess(m, first - 1, b)).toBeLessThanOrEqual(ROW_EXCESS);
    }
  });
});

describe('flags', () => {
  it('reads overrides from the environment and names bad values', () => {
    const f = readFlags({ BATCHWISE_GPU: 'Required', BATCHWISE_GPU_EVAL_SWEEPS: '0', BATCHWISE_GPU_AUTO_MIN_WORK_HARDWARE: 'Infinity' });
    expect(f.BATCHWISE_GPU).toBe('required');
    expect(f.BATCHWISE_GPU_EVAL_SWEEPS).toBe(0);
    expect(f.BATCHWISE_GPU_AUTO_MIN_WORK_HARDWARE).toBe(Infinity);
    expect(f.BATCHWISE_GPU_CYCLES_PER_CHECK).toBe(DEFAULT_FLAGS.BATCHWISE_GPU_CYCLES_PER_CHECK);
    expect(() => readFlags({ BATCHWISE_GPU: 'maybe' })).toThrow('BATCHWISE_GPU must be one of off, auto, required');
    expect(() => readFlags({ BATCHWISE_GPU_CYCLES_PER_CHECK: '0' })).toThrow('BATCHWISE_GPU_CYCLES_PER_CHECK must be a positive number');
  });
});

describe('AUTO rule', () => {
  const size = { states: 1000, batch: 64, pmfWidth: 200 };
  it('sums states × actions × pmf width over the batch', () => {
    expect(sweepWork([size, size])).toBe(2 * 1000 * 64 * 200);
  });
  it('never picks a software adapter with the measured (infinite) threshold; a hardware one past its threshold', () => {
    const w = sweepWork([size]);
    expect(gpuPaysOff(1e15, 'software', DEFAULT_FLAGS)).toBe(false);
    expect(gpuPaysOff(w, 'hardware', DEFAULT_FLAGS)).toBe(w >= DEFAULT_FLAGS.BATCHWISE_GPU_AUTO_MIN_WORK_HARDWARE);
    expect(gpuPaysOff(DEFAULT_FLAGS.BATCHWISE_GPU_AUTO_MIN_WORK_HARDWARE, 'hardware', DEFAULT_FLAGS)).toBe(true);
    expect(gpuMightPayOff(1, DEFAULT_FLAGS)).toBe(false);
    expect(gpuPaysOff(5, 'software', { ...DEFAULT_FLAGS, BATCHWISE_GPU_AUTO_MIN_WORK_SOFTWARE: 5 })).toBe(true);
  });
});

describe('f32 stop rule', () => {
  const flags = { ...DEFAULT_FLAGS, BATCHWISE_GPU_F32_TOLERANCE: 1e-6, BATCHWISE_GPU_STALL_CHECKS: 3, BATCHWISE_GPU_STABLE_CHECKS: 2 };
  it('converges at max(tolerance, f32 floor)', () => {
    const t = new StopTracker(flags, 1e-9);
    t.check(1, 1 + 2e-6, 5, 10, false);
    expect(t.done).toBe(false);
    t.check(1, 1 + 5e-7, 5, 20, false);
    expect([t.done, t.stop, t.sweeps]).toEqual([true, 'converged', 20]);
  });
  it('stops when the gap no longer falls by 1 %', () => {
    const t = new StopTracker(flags, 1e-9);
    for (const gap of [1e-2, 5e-3, 4.99e-3, 4.98e-3]) t.check(1, 1 + gap, 1, 0, false);
    expect(t.done).toBe(false);
    t.check(1, 1 + 4.97e-3, 1, 0, false);
    expect(t.stop).toBe('stalled');
  });
  it('stops when the greedy policy has not changed for the set number of checks', () => {
    const t = new StopTracker(flags, 1e-9);
    let gap = 1e-1;
    for (const changes of [3, 0, 2, 0]) t.check(1, 1 + (gap /= 2), changes, 0, false);
    expect(t.done).toBe(false);
    t.check(1, 1 + (gap /= 2), 0, 0, false);
    expect(t.stop).toBe('stable');
  });
  it('reports non-finite bounds as diverged, and the sweep cap', () => {
    const t = new StopTracker(flags, 1e-9);
    t.check(Number.NEGATIVE_INFINITY, 1, 0, 0, false);
    expect(t.stop).toBe('diverged');
    const c = new StopTracker(flags, 1e-9);
    c.check(1, 2, 9, 100, true);
    expect(c.stop).toBe('max-sweeps');
  });
});

describe('batch collector', () => {
  const job = (S: number): GpuRviJob => ({ model: { S } as CompiledModel, tolerance: 1e-9 });

  it('runs a round once every participant waits, and re-batches those that come back', async () => {
    const rounds: number[][] = [];
    const c = new BatchCollector({
      single: async (jobs) => {
        rounds.push(jobs.map((j) => j.model.S));
        return jobs.map((j) => ({ adapter: 'fake', result: { lower: j.model.S, upper: j.model.S, sweeps: 1, stop: 'converged' as const } }));
      },
    });
    c.join();
    c.join();
    c.join();
    const a = c.stage(job(1));
    const b = c.stage(job(2));
    await Promise.resolve();
    expect(rounds).toEqual([]); // the third participant is still busy
    const third = (async () => {
      const r = await c.stage(job(3));
      c.leave();
      return r;
    })();
    expect((await a)?.result.lower).toBe(1);
    expect((await b)?.result.lower).toBe(2);
    expect((await third)?.result.lower).toBe(3);
    // Two come back (a bigger S); the one that left is no longer waited for.
    const again = [c.stage(job(10)), c.stage(job(20))];
    await Promise.all(again);
    expect(rounds).toEqual([[1, 2, 3], [10, 20]]);
    expect(c.batchSizes).toEqual([3, 2]);
  });

  it('a round holds a batch per model kind, each through its own runner; a failed kind fails only its own solves', async () => {
    const joint = (states: number, resid?: Float64Array): GpuJointJob => ({ model: { states } as ClassesModel, tolerance: 1e-9, ...(resid ? { resid } : {}) });
    const seen: string[] = [];
    const answer = (v: number) => ({ adapter: 'fake', result: { lower: v, upper: v, sweeps: 1, stop: 'converged' as const } });
    const c = new BatchCollector({
      single: async (jobs) => {
        seen.push(`single ${jobs.map((j) => j.model.S).join(',')}`);
        return jobs.map((j) => answer(j.model.S));
      },
      joint: async (jobs) => {
        seen.push(`joint ${jobs.map((j) => j.model.states).join(',')}`);
        expect(jobs.every((j) => !j.resid)).toBe(true);
        return jobs.map((j) => answer(-j.model.states));
      },
      residual: async () => {
        seen.push('residual');
        throw new Error('device lost');
      },
    });
    for (let i = 0; i < 5; i++) c.join();
    const out = await Promise.allSettled([c.submit('joint', joint(7), 4), c.stage(job(1)), c.submit('residual', joint(9, new Float64Array(9)), 4), c.submit('joint', joint(8), 6), c.submit('single', job(2), 5)]);
    expect(seen).toEqual(['single 1,2', 'joint 7,8', 'residual']);
    expect(out.map((r) => (r.status === 'fulfilled' ? r.value?.result.lower : 'rejected'))).toEqual([-7, 1, 'rejected', -8, 2]);
    expect(c.batches).toEqual([
      // Jobs submitted with their scenario's index are named in the record; the stage's are not.
      { kind: 'single', size: 2, scenarios: [5] },
      { kind: 'joint', size: 2, scenarios: [4, 6] },
      { kind: 'residual', size: 1, scenarios: [4] },
    ]);
    // A kind without a runner gets no GPU stage.
    const bare = new BatchCollector({});
    bare.join();
    expect(await bare.submit('joint', joint(3))).toBeUndefined();
  });

  it('passes a failed round to every waiting solve', async () => {
    const c = new BatchCollector({
      single: async () => {
        throw new Error('device lost');
      },
    });
    c.join();
    c.join();
    const both = Promise.allSettled([c.stage(job(1)), c.stage(job(2))]);
    expect((await both).map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});

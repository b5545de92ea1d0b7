import { afterAll, describe, expect, it } from 'vitest';
import { axisSums, classesStep, fillBox, stepScratch } from '../../src/model/classes/bellman.js';
import { compileClasses, type ClassesModel } from '../../src/model/classes/compile.js';
import { sizeOf } from '../../src/model/classes/grid.js';
import { validateClassesScenario } from '../../src/model/classes/validate.js';
import { largestOf } from '../../src/solve/gpu/bindingGroups.js';
import { releaseGpu, type GpuContext } from '../../src/solve/gpu/device.js';
import { toReal } from '../../src/solve/gpu/df64.js';
import { DEFAULT_FLAGS } from '../../src/solve/gpu/flags.js';
import { axisSlots, axisSumsFit } from '../../src/solve/gpu/jointAxis.js';
import { classesAxisKernel, classesPadKernel } from '../../src/solve/gpu/jointKernels.js';
import { jointBindingBytes, packJointBatch } from '../../src/solve/gpu/jointPack.js';
import { batchedJointRvi } from '../../src/solve/gpu/jointRvi.js';
import { gpuLogger, setGpuLogger } from '../../src/solve/gpu/log.js';
import { BufferUsage } from '../../src/solve/gpu/usage.js';
import { scenarioOf, type CaseClass } from '../classes/support.js';
import { rng } from '../helpers/random.js';
import { gpuForTests } from './gpuEnv.js';
import { captureLogs } from './gpuTestHelpers.js';

const gpu = await gpuForTests();
afterAll(releaseGpu);

const det: CaseClass = { name: 'a', rate: 200, B: 4, perItem: 0.001, base: 0.002, law: 'DETERMINISTIC', powerPerItem: 3, powerBase: 80, w: 1 };
/** Two deterministic classes; three with the middle one gamma (its actions by rows, the others' product kernels with two planes). */
const CASES = [
  { cls: [det, { ...det, name: 'b', rate: 120, B: 3, perItem: 0.002, w: 2 }], S: [9, 7] },
  { cls: [{ ...det, rate: 90, B: 2 }, { ...det, name: 'b', rate: 60, B: 2, perItem: 0.002, w: 2, law: 'GAMMA' as const, cv: 0.5 }, { ...det, name: 'c', rate: 40, B: 2, perItem: 0.003, w: 0.5 }], S: [4, 5, 3] },
];

function modelOf(cls: CaseClass[], S: number[]): ClassesModel {
  return compileClasses(validateClassesScenario(scenarioOf(cls, 40, 1e-3)).params, S);
}

/** Relative-value-like values: convex, growing like n², with noise, and 0 at n = 0. */
function startValues(m: ClassesModel, seed: number): Float64Array {
  const r = rng(seed);
  const h = new Float64Array(m.states);
  const n = new Int32Array(m.C);
  for (let x = 1; x < m.states; x++) {
    for (let a = m.C - 1; a >= 0 && ++n[a] === m.dims[a]; a--) n[a] = 0;
    for (let c = 0; c < m.C; c++) h[x] += 0.002 * n[c] * n[c] * (0.8 + 0.4 * r()) + 0.01 * n[c];
  }
  return h;
}

describe(`the joint model's per-axis sums on the GPU${gpu.skip}`, () => {
  it.skipIf(!gpu.ctx)("classes_axis forms the CPU's axisSums (the lumped box, every product-kernel action, every axis) to f32 accuracy, two and three classes packed together", async () => {
    const { device, runner } = gpu.ctx!;
    const models = CASES.map((c) => modelOf(c.cls, c.S));
    const hs = models.map((m, i) => startValues(m, 5 + i));
    const packed = packJointBatch(models, hs.map((values) => ({ values })), [], [true, true]);
    expect(packed.axisClasses).toBe(3);
    const held: GPUBuffer[] = [];
    const upload = (data: ArrayBufferView | ArrayBuffer, bytes = data.byteLength) => {
      const b = device.createBuffer({ size: Math.max(16, Math.ceil(bytes / 16) * 16), usage: BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC });
      if (data.byteLength) device.queue.writeBuffer(b, 0, data instanceof ArrayBuffer ? data : data.buffer, 0, data.byteLength);
      held.push(b);
      return b;
    };
    const hpadBytes = 4 * packed.hpadValues;
    const buffers = { scenarios: upload(packed.scenarios.buffer), joint: upload(packed.joint.buffer), tables: upload(packed.tables), coef: upload(toReal(packed.coef, 'f32')), h: upload(packed.h), hpad: upload(new Float32Array(packed.hpadValues).fill(Number.NaN)) };
    const common = { total_pad: packed.totalPad, num_scenarios: models.length };
    const kernels = [
      await runner.bind(classesPadKernel(64), buffers, { ...common, extrapolate: 0 }, { threads: packed.totalPad }),
      await runner.bind(classesAxisKernel(64), buffers, { ...common, axis: 2 }, { threads: packed.totalPad }),
      await runner.bind(classesAxisKernel(64), buffers, { ...common, axis: 1 }, { threads: packed.totalPad }),
    ];
    const enc = device.createCommandEncoder();
    runner.encodePass(enc, kernels, 'axis-test');
    const [data] = await runner.submit(enc, 'per-axis sums', [runner.encodeRead(enc, buffers.hpad, hpadBytes)]);
    kernels.forEach((k) => runner.unbind(k));
    held.forEach((b) => b.destroy());
    const out = new Float32Array(data);
    models.forEach((m, i) => {
      const scratch = stepScratch(m);
      fillBox(m, hs[i], scratch, 'lump');
      for (let x = m.C - 1; x >= 1; x--) axisSums(m, scratch, x, 0, scratch.H.length);
      const pad = sizeOf(m.padDims);
      const scale = Math.max(...Array.from(scratch.H, Math.abs));
      const base = packed.joint.get(i, 'axis_base');
      let slot = 0;
      let compared = 0;
      for (let a = 1; a < m.actions; a++) {
        if (m.separable[a] !== 1) continue;
        for (let x = 1; x < m.C; x++) {
          const len = (z: number) => m.factorStart[a * m.C + z + 1] - m.factorStart[a * m.C + z];
          const fits = (y: number, z: number) => (Math.floor(y / m.padStrides[z]) % m.padDims[z]) + len(z) <= m.padDims[z];
          const plane = base + (slot * (m.C - 1) + x - 1) * pad;
          for (let y = 0; y < pad; y++) {
            // Only origins whose kernel fits on axes x … C − 1 are formed from formed sums (and only these are ever read).
            let formed = true;
            for (let z = x; z < m.C; z++) formed &&= fits(y, z);
            if (!formed) continue;
            expect(Math.abs(out[plane + y] - scratch.F[a][x][y])).toBeLessThan(2e-6 * scale);
            compared++;
          }
        }
        slot++;
      }
      expect(slot).toBe(axisSlots(m));
      expect(compared).toBeGreaterThan(pad);
    });
  });
});

/** The context with its device's binding limit lowered to `bytes` (every other use of the device is the device's). */
function withBindingLimit(ctx: GpuContext, bytes: number): GpuContext {
  const real = ctx.device;
  const limits: Record<string, number> = {};
  for (const k in real.limits) limits[k] = (real.limits as unknown as Record<string, number>)[k];
  Object.assign(limits, { maxStorageBufferBindingSize: bytes, maxBufferSize: bytes });
  const device = new Proxy(real, {
    get: (t, k) => {
      if (k === 'limits') return limits;
      const v = Reflect.get(t, k, t) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
    },
  });
  return { ...ctx, device };
}

describe(`the rows fallback on the GPU${gpu.skip}`, () => {
  it.skipIf(!gpu.ctx)('past the binding limit a Bellman sweep sums the product kernels by rows, says so in the log (axisSums: false), and still takes the CPU f64 step to f32 accuracy', async () => {
    const defaultLogger = gpuLogger();
    const logs = captureLogs();
    try {
      const m = modelOf(CASES[0].cls, CASES[0].S);
      // Room for every binding of the model without its sums, not with them.
      const limit = largestOf(jointBindingBytes(m, false));
      expect(axisSumsFit(m, limit)).toBe(false);
      const h = startValues(m, 9);
      const gap = new Float64Array(m.states);
      classesStep(m, h, gap, new Int32Array(m.states), stepScratch(m), undefined, 'lump');
      const flags = { ...DEFAULT_FLAGS, BATCHWISE_GPU_EVAL_SWEEPS: 0, BATCHWISE_GPU_MAX_SWEEPS: 1, BATCHWISE_GPU_CYCLES_PER_CHECK: 1 };
      const [r] = await batchedJointRvi(withBindingLimit(gpu.ctx!, limit), [{ model: m, warm: { values: h }, tolerance: 1e-9 }], { flags });
      const said = logs.find((l) => (l as { axisSums?: boolean }).axisSums === false);
      expect(said?.msg).toMatch(/summed by rows/);
      const scale = Math.max(...Array.from(h, Math.abs), ...Array.from(gap, Math.abs));
      for (let x = 0; x < m.states; x++) expect(Math.abs(r.values![x] - (h[x] + gap[x] - gap[0]))).toBeLessThan(1e-5 * scale);
      // With the device's own limit the sums fit and nothing is said.
      logs.length = 0;
      const [full] = await batchedJointRvi(gpu.ctx!, [{ model: m, warm: { values: h }, tolerance: 1e-9 }], { flags });
      expect(logs.some((l) => (l as { axisSums?: boolean }).axisSums === false)).toBe(false);
      for (let x = 0; x < m.states; x++) expect(Math.abs(full.values![x] - r.values![x])).toBeLessThan(1e-5 * scale);
    } finally {
      setGpuLogger(defaultLogger);
    }
  });
});

describe('where the per-axis sums go (no GPU needed)', () => {
  it('a model whose sums would pass the binding limit is summed by rows; one class or no product kernel has none', () => {
    const m = modelOf(CASES[0].cls, CASES[0].S);
    const box = 4 * sizeOf(m.padDims);
    expect(axisSlots(m)).toBe(m.actions - 1);
    expect(axisSumsFit(m, 1 << 30)).toBe(true);
    expect(axisSumsFit(m, 2 * box)).toBe(false);
    expect(axisSlots(modelOf([det], [9]))).toBe(0);
    expect(axisSlots(modelOf([{ ...det, law: 'GAMMA', cv: 0.5 }, { ...det, name: 'b', law: 'EXPONENTIAL' }], [5, 5]))).toBe(0);
    const rows = packJointBatch([m], [], [], [false]);
    expect(rows.axisClasses).toBe(0);
    expect(rows.hpadValues).toBe(sizeOf(m.padDims));
    expect(rows.tables[rows.joint.get(0, 'factor_base') + 7]).toBe(-1);
  });
});

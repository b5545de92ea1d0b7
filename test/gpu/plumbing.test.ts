import { describe, expect, it } from 'vitest';
import { BufferPool, sizeClass, type BufferFactory } from '../../src/solve/gpu/bufferPool.js';
import { foldDispatch } from '../../src/solve/gpu/dispatch.js';
import { classesAxisKernel, classesPadKernel, classesSweepKernel } from '../../src/solve/gpu/jointKernels.js';
import { interfaceComment, type KernelDescriptor } from '../../src/solve/gpu/kernel.js';
import { bellmanSweepKernel, boundsReduceKernel, normalizeKernel } from '../../src/solve/gpu/kernels.js';
import { loadShaderBody, makeShader, ShaderError } from '../../src/solve/gpu/shaderSource.js';
import { packUniforms, uniformLayout, uniformStruct } from '../../src/solve/gpu/uniforms.js';

// These run without a GPU: the host-side plumbing the kernels rely on.

describe('uniform packing (WGSL uniform address space layout)', () => {
  const decls = [
    { name: 'a', type: 'u32' },
    { name: 'b', type: 'f32' },
    { name: 'c', type: 'vec2<u32>' },
    { name: 'd', type: 'vec4<f32>' },
    { name: 'e', type: 'i32' },
    { name: 'f', type: 'vec3<f32>' },
  ] as const;

  it('aligns vec2 to 8 and vec3/vec4 to 16, and rounds the struct to 16 bytes', () => {
    const layout = uniformLayout(decls);
    expect(layout.fields.map((f) => f.offset)).toEqual([0, 4, 8, 16, 32, 48]);
    expect(layout.size).toBe(64);
    expect(uniformLayout([{ name: 'x', type: 'u32' }]).size).toBe(16);
  });

  it('writes each value at its offset with its type', () => {
    const buf = packUniforms('k', decls, { a: 7, b: 0.5, c: [1, 2], d: [1.5, 2.5, 3.5, 4.5], e: -3, f: [9, 8, 7] });
    const v = new DataView(buf);
    expect(v.getUint32(0, true)).toBe(7);
    expect(v.getFloat32(4, true)).toBe(0.5);
    expect([v.getUint32(8, true), v.getUint32(12, true)]).toEqual([1, 2]);
    expect([16, 20, 24, 28].map((o) => v.getFloat32(o, true))).toEqual([1.5, 2.5, 3.5, 4.5]);
    expect(v.getInt32(32, true)).toBe(-3);
    expect([48, 52, 56].map((o) => v.getFloat32(o, true))).toEqual([9, 8, 7]);
  });

  it('generates the struct from the same list', () => {
    expect(uniformStruct(decls)).toBe(
      'struct Uniforms {\n  a: u32,\n  b: f32,\n  c: vec2<u32>,\n  d: vec4<f32>,\n  e: i32,\n  f: vec3<f32>,\n}\n',
    );
  });

  it('names the kernel and the field in every mismatch', () => {
    const one = [{ name: 'n', type: 'u32' }] as const;
    expect(() => packUniforms('sweep', one, {})).toThrow('sweep: uniform n has no value');
    expect(() => packUniforms('sweep', one, { n: 1, m: 2 })).toThrow('sweep: uniform m is not declared');
    expect(() => packUniforms('sweep', one, { n: -1 })).toThrow('sweep: uniform n = -1 is not a valid u32');
    expect(() => packUniforms('sweep', one, { n: 1.5 })).toThrow('not a valid u32');
    expect(() => packUniforms('sweep', one, { n: [1, 2] })).toThrow('sweep: uniform n needs 1 value(s), got 2');
    expect(() => uniformLayout([{ name: 'x', type: 'u32' }, { name: 'x', type: 'f32' }])).toThrow('declared twice');
  });
});

describe('dispatch folding', () => {
  it('keeps small dispatches 1-D', () => {
    expect(foldDispatch(1000, 65535)).toEqual({ x: 1000, y: 1 });
    expect(foldDispatch(0, 65535)).toEqual({ x: 1, y: 1 });
  });

  it('folds past maxComputeWorkgroupsPerDimension into 2-D with x·y ≥ n and little surplus', () => {
    for (const n of [65536, 70000, 1_000_003, 65535 * 7 + 1]) {
      const d = foldDispatch(n, 65535);
      expect(d.x).toBeLessThanOrEqual(65535);
      expect(d.y).toBeLessThanOrEqual(65535);
      expect(d.x * d.y).toBeGreaterThanOrEqual(n);
      expect(d.x * d.y - n).toBeLessThan(d.y);
    }
    expect(foldDispatch(70000, 65535)).toEqual({ x: 35000, y: 2 });
  });

  it('refuses what cannot fit in two dimensions', () => {
    expect(() => foldDispatch(10 * 10 + 1, 10)).toThrow('exceed 10²');
  });
});

describe('buffer pool', () => {
  it('size classes are multiples of 16, at least the request, at most 25 % over', () => {
    expect(sizeClass(1)).toBe(256);
    expect(sizeClass(257)).toBe(320);
    expect(sizeClass(1024)).toBe(1024);
    expect(sizeClass(1025)).toBe(1280);
    for (let bytes = 200; bytes < 5_000_000; bytes = Math.ceil(bytes * 1.37)) {
      const c = sizeClass(bytes);
      expect(c % 16).toBe(0);
      expect(c).toBeGreaterThanOrEqual(bytes);
      expect(c).toBeLessThanOrEqual(Math.max(256, 1.25 * bytes));
    }
  });

  function fakeDevice(): BufferFactory & { created: number } {
    const dev = {
      created: 0,
      createBuffer(d: GPUBufferDescriptor): GPUBuffer {
        dev.created++;
        return { size: d.size, usage: d.usage, destroy() {} } as unknown as GPUBuffer;
      },
    };
    return dev;
  }

  it('reuses released buffers only after a submit, and counts bytes', () => {
    const dev = fakeDevice();
    const pool = new BufferPool(dev);
    const a = pool.acquire(1000, 0x80);
    const b = pool.acquire(1000, 0x88);
    expect(pool.stats()).toEqual({ numBytesUsed: 2048, numBytesAllocated: 2048, numBuffersAllocated: 2 });
    pool.release(a);
    expect(pool.stats().numBytesUsed).toBe(1024);
    // Not yet submitted: the encoded commands may still use `a`.
    const c = pool.acquire(1000, 0x80);
    expect(c).not.toBe(a);
    pool.refresh();
    expect(pool.acquire(900, 0x80)).toBe(a); // same size class and usage
    expect(pool.acquire(1000, 0x80)).not.toBe(b); // other usage is another list
    expect(pool.stats()).toEqual({ numBytesUsed: 4096, numBytesAllocated: 4096, numBuffersAllocated: 4 });
    expect(dev.created).toBe(4);
    expect(() => pool.release({} as GPUBuffer)).toThrow('not acquired from this pool');
  });
});

describe('shader sources', () => {
  const kernels = [bellmanSweepKernel(64), normalizeKernel(64), boundsReduceKernel(64), classesPadKernel(64), classesAxisKernel(64), classesSweepKernel(64)];

  it('every shader file opens with the comment of its declared bindings and uniforms', () => {
    for (const k of kernels) {
      const body = loadShaderBody(k);
      expect(body.startsWith(interfaceComment(k))).toBe(true);
      expect(body).toContain('fn run(wg: u32, lid: u32)');
    }
  });

  it('a file that drifts from its declaration is refused, naming the shader', () => {
    const k = bellmanSweepKernel(64);
    const drifted: KernelDescriptor = { ...k, bindings: [...k.bindings, { name: 'extra', access: 'read', type: 'array<f32>' }] };
    expect(() => loadShaderBody(drifted)).toThrow(ShaderError);
    expect(() => loadShaderBody(drifted)).toThrow(/shader bellman_sweep: .*bellman_sweep\.wgsl must open with/);
    expect(() => loadShaderBody({ ...k, name: 'no_such_kernel' })).toThrow(/shader no_such_kernel: cannot read/);
  });

  it('generates numbered bindings, structs, uniforms and the entry point', () => {
    const code = makeShader(normalizeKernel(32));
    expect(code).toContain('const WORKGROUP_SIZE: u32 = 32u;');
    expect(code).toContain('struct ScenarioInfo {');
    expect(code).toContain('@group(0) @binding(0) var<uniform> u: Uniforms;');
    expect(code).toContain('@group(0) @binding(3) var<storage, read> gap: array<f32>;');
    expect(code).toContain('@group(0) @binding(4) var<storage, read_write> h: array<f32>;');
    expect(code).toContain('@compute @workgroup_size(32)');
    expect(code).toContain('run(wid.y * nwg.x + wid.x, lid);');
  });

  it('puts every compile-time choice in the shader key', () => {
    expect(bellmanSweepKernel(64).shaderKey).not.toBe(bellmanSweepKernel(128).shaderKey);
    expect(() => boundsReduceKernel(48)).toThrow('power-of-two');
  });
});

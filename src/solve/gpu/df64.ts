import type { KernelDescriptor } from './kernel.js';
import type { UniformDecl } from './uniforms.js';

/**
 * Double-float values (df64: hi + lo, two f32; shaders/lib/real_df64.wgsl) on the host: the
 * split of f64 values into pairs for upload, their sum back, and the kernel that runs the df64
 * operations alone so that a test can check them on the device.
 */

/** The arithmetic type a joint kernel is compiled for (its `Real`). */
export type RealKind = 'f32' | 'df64';

/** Words (f32) one value takes in a buffer. */
export function realWords(real: RealKind): number {
  return real === 'df64' ? 2 : 1;
}

/**
 * Each value as hi = f32(v), lo = f32(v − hi) (df64), or as f32 (f32). The pair holds v to
 * 2^-48 relative or better (v − hi is exact in f64, then rounded once).
 */
export function toReal(v: ArrayLike<number>, real: RealKind): Float32Array {
  if (real === 'f32') return Float32Array.from(v as ArrayLike<number>);
  const out = new Float32Array(2 * v.length);
  for (let i = 0; i < v.length; i++) {
    const hi = Math.fround(v[i]);
    out[2 * i] = hi;
    out[2 * i + 1] = v[i] - hi;
  }
  return out;
}

/** The values of a buffer of `real` back in f64 (hi + lo: exact in f64). */
export function fromReal(w: Float32Array, real: RealKind): Float64Array {
  if (real === 'f32') return Float64Array.from(w);
  const out = new Float64Array(w.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = w[2 * i] + w[2 * i + 1];
  return out;
}

/**
 * The uniform every kernel over `Real` declares (in f32 too, so one file serves both): 0, which
 * real_df64.wgsl xors into the bits of the error-free transforms' intermediates so that the shader
 * compiler, not knowing it, cannot fold their error terms away (Mesa's llvmpipe does, otherwise:
 * test/gpu/df64.gpu.test.ts).
 */
export const REAL_ZERO: UniformDecl = { name: 'real_zero', type: 'u32', value: 0 };

/** shaders/df64_check.wgsl: per operand triple (a, b, c) six df64 results (see the shader). */
export function df64CheckKernel(workgroupSize: number): KernelDescriptor {
  return {
    name: 'df64_check',
    shaderKey: `df64_check:wg${workgroupSize}`,
    workgroupSize,
    structs: [],
    bindings: [
      { name: 'operands', access: 'read', type: 'array<Real>' },
      { name: 'results', access: 'read_write', type: 'array<Real>' },
    ],
    uniforms: [{ name: 'count', type: 'u32' }, REAL_ZERO],
    includes: ['real_df64'],
  };
}

import { afterMasses } from '../../model/classes/bellman.js';
import type { ClassesModel } from '../../model/classes/compile.js';
import { sizeOf } from '../../model/classes/grid.js';
import { sizeClass } from './bufferPool.js';

/**
 * The per-axis sums of product kernels (deterministic service) on the GPU, classes_axis.wgsl:
 * the CPU's axisSums (src/model/classes/bellman.ts) over the same padded box, with the same
 * factors and masses P_{>x} (afterMasses). Each product-kernel action gets a slot of C − 1 planes
 * F_1 … F_{C−1}, each one padded box, in `hpad` past every scenario's box.
 */

/** i32 per action in `tables` from factor_base: slot (−1: summed by rows), then (start, length) per axis. */
export const FACTOR_RECORD = 7;
/** f32 per action in `coef` from mass_base: P_{>x} on axes 0, 1, 2. */
export const MASS_RECORD = 3;

/** Product-kernel actions of a model that may have per-axis sums (none with one class: its rows are its one factor). */
export function axisSlots(m: ClassesModel): number {
  if (m.C < 2) return 0;
  let n = 0;
  for (let a = 1; a < m.actions; a++) n += m.separable[a];
  return n;
}

/** f32 the per-axis sums of a model take in `hpad`: C − 1 padded boxes per slot. */
export function axisPlaneValues(m: ClassesModel): number {
  return axisSlots(m) * (m.C - 1) * sizeOf(m.padDims);
}

/**
 * Whether a model's per-axis sums fit: its box and its sums in one `hpad` binding within the
 * device's binding limit (else its product kernels are summed by rows, as other kernels are).
 */
export function axisSumsFit(m: ClassesModel, maxBindingBytes: number): boolean {
  return axisSlots(m) > 0 && sizeClass(4 * (sizeOf(m.padDims) + axisPlaneValues(m))) <= maxBindingBytes;
}

/**
 * Writes a model's factor records into `tables` at `factorBase` (A records) and its masses into
 * `coef` at `massBase` (A records) and factors at `fprobsBase`; with `axis` false every slot is −1.
 */
export function putAxisTables(m: ClassesModel, axis: boolean, tables: Int32Array, factorBase: number, coef: Float64Array, massBase: number, fprobsBase: number): void {
  const mass = afterMasses(m);
  coef.set(m.factorProbs, fprobsBase);
  let slot = 0;
  for (let a = 0; a < m.actions; a++) {
    const r = factorBase + FACTOR_RECORD * a;
    tables[r] = axis && m.separable[a] === 1 ? slot++ : -1;
    for (let x = 0; x < m.C; x++) {
      const start = m.factorStart[a * m.C + x];
      tables[r + 1 + 2 * x] = start;
      tables[r + 2 + 2 * x] = m.factorStart[a * m.C + x + 1] - start;
      coef[massBase + MASS_RECORD * a + x] = mass[a * m.C + x];
    }
  }
}

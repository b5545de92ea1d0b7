import type { UniformScalar } from './uniforms.js';

/**
 * Storage-buffer record types shared by the kernels. Like the uniforms, each is one
 * declaration list from which both the WGSL struct and the host-side packing come, so the
 * two layouts cannot drift apart. Only 4-byte scalar fields: the layout is 4·index. A field of
 * the kernels' arithmetic type `Real` (f32 or a df64 pair, shaders/lib) is for records only the
 * device writes: the host reads them by hand and never packs them (StructArray refuses them).
 */
export interface StructDecl {
  readonly name: string;
  readonly fields: readonly { readonly name: string; readonly type: UniformScalar | 'Real' }[];
}

/**
 * One per scenario of a batch. The stage loop and the kernels every model kind shares
 * (normalize, bounds_reduce) read only state_offset, states and live. A single-class scenario is a compiled (queue, phase) model with its own M
 * (M = 1 for Poisson arrivals): its states are the flat x = s·M + j, s = 0..S, j = 0..M−1,
 * at state_offset + x (docs/mmpp.md, "Compiled model layout").
 */
export const SCENARIO_INFO: StructDecl = {
  name: 'ScenarioInfo',
  fields: [
    { name: 'state_offset', type: 'u32' }, // global index of the scenario's state (0, 0)
    { name: 'last', type: 'u32' }, // S: levels 0..S
    { name: 'phases', type: 'u32' }, // M: (S + 1)·M states
    { name: 'max_batch', type: 'u32' }, // B
    { name: 'action_offset', type: 'u32' }, // index of the record of b = 1 in `actions`
    { name: 'live', type: 'u32' }, // 0 once converged: kernels skip the scenario
    { name: 'cost_slope', type: 'f32' }, // c̃ grows by this per queued request
    { name: 'kappa_base', type: 'u32' }, // kappa[a·M + j] at coef[kappa_base + a·M + j] (a = 0: wait)
    { name: 'rates_base', type: 'u32' }, // τ·λ_j at coef[rates_base + j], τ·Q_jj' at coef[rates_base + M + j·M + j']
    { name: 'all_unstable_from', type: 'u32' }, // from this s on only serve-B is left (see pack.ts)
    { name: 'states', type: 'u32' }, // states of the scenario ((S + 1)·M here; any model kind's count for the shared kernels)
  ],
};

/** One per (scenario, b = 1..B). */
export const ACTION_INFO: StructDecl = {
  name: 'ActionInfo',
  fields: [
    { name: 'rate', type: 'f32' }, // τ / l(b)
    { name: 'pmf_offset', type: 'i32' }, // smallest k of the arrival counts kept
    { name: 'pmf_start', type: 'u32' }, // where b's [j][k][j'] block starts in `coef`
    { name: 'pmf_length', type: 'i32' }, // number of k kept
    { name: 'tail_first', type: 'i32' }, // first s whose transition passes S
    { name: 'tail_start', type: 'u32' }, // where the triple of (s = tail_first, j = 0, j' = 0) starts in `coef`
    { name: 'unstable_first', type: 'i32' }, // from this s on the f32 stage leaves serve-b out (see pack.ts)
  ],
};

/**
 * One per scenario of a joint multi-class batch (docs/model.md §10; src/model/classes/compile.ts):
 * up to three axes, a model of C < 3 classes padded with trailing axes of one level, which leave
 * the flat layout (last class fastest) unchanged. The padded box H holds the values the serve
 * sums read; `tables` holds 5 i32 per action (class, batch, shift, first row, end row) from
 * action_base and 3 per kernel row (offset, length, first probability) from row_base; `coef`
 * holds w_c/λ_c (3), τ·λ_c (3) and w_pow·P0 from coef_base, kappa[a] and τ/l from kappa_base
 * (A each), and the kernels' probabilities from probs_base. For the per-axis sums of product
 * kernels (classes_axis.wgsl), `tables` holds 7 i32 per action from factor_base and `coef` the
 * factors from fprobs_base and 3 masses P_{>x} per action from mass_base; the sums lie in
 * `hpad` past every padded box, from axis_base.
 */
export const JOINT_INFO: StructDecl = {
  name: 'JointInfo',
  fields: [
    { name: 'classes', type: 'u32' }, // C
    { name: 'state_offset', type: 'u32' }, // global index of state n = 0 (as ScenarioInfo's)
    { name: 'states', type: 'u32' },
    { name: 'pad_offset', type: 'u32' }, // global index of the padded box's origin in H
    { name: 'pad_states', type: 'u32' },
    { name: 'dim0', type: 'u32' }, // S_c + 1 per axis
    { name: 'dim1', type: 'u32' },
    { name: 'dim2', type: 'u32' },
    { name: 'pad_dim0', type: 'u32' }, // padded box dims per axis
    { name: 'pad_dim1', type: 'u32' },
    { name: 'pad_dim2', type: 'u32' },
    { name: 'actions', type: 'u32' }, // A = 1 + Σ B_c (action 0 waits)
    { name: 'action_base', type: 'u32' },
    { name: 'row_base', type: 'u32' },
    { name: 'coef_base', type: 'u32' },
    { name: 'kappa_base', type: 'u32' },
    { name: 'probs_base', type: 'u32' },
    { name: 'resid_base', type: 'u32' }, // a refinement round's per-state costs (one per state) in `coef`
    { name: 'factor_base', type: 'u32' }, // per action 7 i32 in `tables`: its slot of per-axis sums (−1: by rows), then (start, length) of each axis's factor
    { name: 'fprobs_base', type: 'u32' }, // the product kernels' factors in `coef` (the starts above are relative to it)
    { name: 'mass_base', type: 'u32' }, // per action 3 f32 in `coef`: P_{>x}, the product of the factor masses past axis x
    { name: 'axis_base', type: 'u32' }, // global index in `hpad` of the per-axis sums F: slot s, axis x at axis_base + (s·(C−1) + x − 1)·pad_states
  ],
};

/** One per scenario: what the reduction leaves for the host to read. */
export const BOUNDS_OUT: StructDecl = {
  name: 'BoundsOut',
  fields: [
    { name: 'lower', type: 'Real' }, // min over s of the gap (Odoni m_n)
    { name: 'upper', type: 'Real' }, // max over s of the gap (Odoni M_n)
    { name: 'changes', type: 'u32' }, // greedy-action changes since the previous reduction
    { name: 'pad', type: 'u32' },
  ],
};

export function structWgsl(s: StructDecl): string {
  return `struct ${s.name} {\n${s.fields.map((f) => `  ${f.name}: ${f.type},`).join('\n')}\n}\n`;
}

export function structBytes(s: StructDecl): number {
  return 4 * s.fields.length;
}

/** Host-side array of records laid out like `array<S>` in WGSL. */
export class StructArray {
  readonly buffer: ArrayBuffer;
  private readonly u32: Uint32Array;
  private readonly i32: Int32Array;
  private readonly f32: Float32Array;
  private readonly index = new Map<string, { at: number; type: UniformScalar }>();
  private readonly stride: number;

  constructor(
    readonly decl: StructDecl,
    readonly count: number,
  ) {
    this.stride = decl.fields.length;
    this.buffer = new ArrayBuffer(Math.max(1, count) * structBytes(decl));
    this.u32 = new Uint32Array(this.buffer);
    this.i32 = new Int32Array(this.buffer);
    this.f32 = new Float32Array(this.buffer);
    decl.fields.forEach((f, at) => {
      if (f.type === 'Real') throw new Error(`${decl.name}.${f.name} is of the kernels' type Real: the host does not pack it`);
      this.index.set(f.name, { at, type: f.type });
    });
  }

  /** Word offset of a field, for partial writes (e.g. the `active` flag). */
  fieldByteOffset(i: number, field: string): number {
    return 4 * (i * this.stride + this.field(field).at);
  }

  set(i: number, field: string, value: number): void {
    const f = this.field(field);
    const w = i * this.stride + f.at;
    if (f.type === 'f32') this.f32[w] = value;
    else if (f.type === 'i32') this.i32[w] = value;
    else this.u32[w] = value;
  }

  get(i: number, field: string): number {
    const f = this.field(field);
    const w = i * this.stride + f.at;
    return f.type === 'f32' ? this.f32[w] : f.type === 'i32' ? this.i32[w] : this.u32[w];
  }

  private field(name: string): { at: number; type: UniformScalar } {
    const f = this.index.get(name);
    if (!f) throw new Error(`${this.decl.name} has no field ${name}`);
    return f;
  }
}

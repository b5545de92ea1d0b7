// classes_axis.wgsl
// bindings (group 0):
//   @binding(0) u: Uniforms (uniform)
//   @binding(1) scenarios: array<ScenarioInfo> (read)
//   @binding(2) joint: array<JointInfo> (read)
//   @binding(3) tables: array<i32> (read)
//   @binding(4) coef: array<Real> (read)
//   @binding(5) hpad: array<Real> (read_write)
// uniforms:
//   total_pad: u32
//   num_scenarios: u32
//   axis: u32
//   real_zero: u32
//
// The per-axis sums of every action whose kernel is a product p_0 ⊗ … ⊗ p_{C−1} (deterministic
// service) on one axis x = u.axis ≥ 1, one thread per padded position y of every scenario: the
// f32 twin of axisSums in src/model/classes/bellman.ts. With P_{>x} the product of the factor
// masses past x and s_x the padded box's strides,
//   F_{C−1}(y) = Σ_k p_{C−1}(k)·(H(y + k·s_{C−1}) − H(y)),
//   F_x(y)     = Σ_k p_x(k)·(F_{x+1}(y + k·s_x) + P_{>x}·(H(y + k·s_x) − H(y)))   (x = C−2 … 1),
// sums of differences between nearby values, so f32 keeps its digits where h grows like n².
// The host dispatches x = 2 before x = 1 (a scenario of C ≤ x has nothing to do). classes_sweep
// then serves such an action with len_0 terms of two instead of its Π len_x kernel entries.
// Only origins whose kernel fits in the box are formed (the box is padded for the others).
// Layout (src/solve/gpu/jointAxis.ts): per action 7 i32 at factor_base in `tables` (slot, −1 for
// one summed by rows; then each axis's factor start, relative to fprobs_base, and length), P_{>x}
// at mass_base + 3a + x in `coef`; F_x of slot s at axis_base + (s·(C−1) + x − 1)·pad_states + p.
// The header (structs, uniforms, bindings, entry point) is generated from the kernel descriptor
// in src/solve/gpu/jointKernels.ts; live_joint_scenario and the arithmetic type `Real` (f32 or
// df64) come from shaders/lib.

fn run(wg: u32, lid: u32) {
  let y = wg * WORKGROUP_SIZE + lid;
  let sc = live_joint_scenario(y, u.total_pad, true);
  if (sc == u.num_scenarios) {
    return;
  }
  let j = joint[sc];
  let x = u.axis;
  if (x >= j.classes) {
    return;
  }
  let p = y - j.pad_offset;
  let dims = vec3<u32>(j.pad_dim0, j.pad_dim1, j.pad_dim2);
  let strides = vec3<u32>(j.pad_dim1 * j.pad_dim2, j.pad_dim2, 1u);
  let st = strides[x];
  let at = (p / st) % dims[x];
  let planes = j.classes - 1u;
  let inner = x + 1u < j.classes;
  let hy = hpad[y];
  for (var a = 1u; a < j.actions; a++) {
    let rec = j.factor_base + 7u * a;
    let slot = tables[rec];
    if (slot < 0) {
      continue;
    }
    let len = u32(tables[rec + 2u + 2u * x]);
    if (at + len > dims[x]) {
      continue;
    }
    let f = j.fprobs_base + u32(tables[rec + 1u + 2u * x]);
    let out = j.axis_base + (u32(slot) * planes + x - 1u) * j.pad_states + p;
    var acc = r_of(0.0);
    if (inner) {
      // F_{x+1} of the same slot is the next plane.
      let fin = out + j.pad_states;
      let mass = coef[j.mass_base + 3u * a + x];
      for (var k = 0u; k < len; k++) {
        acc = r_add(acc, r_mul(coef[f + k], r_add(hpad[fin + k * st], r_mul(mass, r_sub(hpad[y + k * st], hy)))));
      }
    } else {
      for (var k = 0u; k < len; k++) {
        acc = r_add(acc, r_mul(coef[f + k], r_sub(hpad[y + k * st], hy)));
      }
    }
    hpad[out] = acc;
  }
}

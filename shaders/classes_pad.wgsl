// classes_pad.wgsl
// bindings (group 0):
//   @binding(0) u: Uniforms (uniform)
//   @binding(1) scenarios: array<ScenarioInfo> (read)
//   @binding(2) joint: array<JointInfo> (read)
//   @binding(3) h: array<f32> (read)
//   @binding(4) hpad: array<f32> (read_write)
// uniforms:
//   total_pad: u32
//   num_scenarios: u32
//
// Fills every joint scenario's padded box (docs/model.md §10, src/model/classes/grid.ts) from its
// relative values, one thread per padded position p: hpad(p) = h(min(p, S)) axis by axis, the
// overflow past a top held at the top (clampBox on the CPU). Lumped rows are stochastic, so f32
// value iteration on them cannot diverge; the f64 polish on the CPU goes back to the model's
// quadratic extrapolation (src/solve/classes/solveClasses.ts).

fn run(wg: u32, lid: u32) {
  let y = wg * WORKGROUP_SIZE + lid;
  if (y >= u.total_pad) {
    return;
  }
  let sc = joint_scenario(y, true);
  if (scenarios[sc].live == 0u) {
    return;
  }
  let j = joint[sc];
  let p = y - j.pad_offset;
  let p2 = p % j.pad_dim2;
  let t = p / j.pad_dim2;
  let p1 = t % j.pad_dim1;
  let p0 = t / j.pad_dim1;
  let n0 = min(p0, j.dim0 - 1u);
  let n1 = min(p1, j.dim1 - 1u);
  let n2 = min(p2, j.dim2 - 1u);
  hpad[y] = h[j.state_offset + (n0 * j.dim1 + n1) * j.dim2 + n2];
}

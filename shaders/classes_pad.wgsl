// classes_pad.wgsl
// bindings (group 0):
//   @binding(0) u: Uniforms (uniform)
//   @binding(1) scenarios: array<ScenarioInfo> (read)
//   @binding(2) joint: array<JointInfo> (read)
//   @binding(3) h: array<Real> (read)
//   @binding(4) hpad: array<Real> (read_write)
// uniforms:
//   total_pad: u32
//   num_scenarios: u32
//   extrapolate: u32
//   real_zero: u32
//
// Fills every joint scenario's padded box (docs/model.md §10, src/model/classes/grid.ts) from its
// relative values, one thread per padded position p: hpad(p) = h(min(p, S)) axis by axis, the
// overflow past a top held at the top (clampBox on the CPU). Lumped rows are stochastic, so f32
// value iteration on them cannot diverge; the f64 polish on the CPU goes back to the model's
// quadratic extrapolation (src/solve/classes/solveClasses.ts).
// With extrapolate = 1 (the residual evaluations of the refinement, which evaluate the model
// itself) the box holds the model's extrapolation instead (extendBox on the CPU, grid.ts): past a
// top by m, h(S + m) ≈ (1 + m + q)·h(S) − (m + 2q)·h(S − 1) + q·h(S − 2), q = m(m + 1)/2, and past
// several tops the tensor product of these rules, up to 27 terms, each position from h directly.
// Arithmetic is in `Real` (shaders/lib/real_f32.wgsl or real_df64.wgsl, the descriptor's choice).

// The one-axis rule at padded coordinate p of an axis with top `top`: its number of terms, the
// coordinate of term d and its weight.
fn rule_terms(p: u32, top: u32) -> u32 {
  return select(3u, 1u, p <= top);
}

fn rule_at(p: u32, top: u32, d: u32) -> u32 {
  return select(top - d, p, p <= top);
}

fn rule_weight(p: u32, top: u32, d: u32) -> f32 {
  if (p <= top) {
    return 1.0;
  }
  let m = f32(p - top);
  let q = 0.5 * m * (m + 1.0);
  if (d == 0u) {
    return 1.0 + m + q;
  }
  if (d == 1u) {
    return -(m + 2.0 * q);
  }
  return q;
}

fn run(wg: u32, lid: u32) {
  let y = wg * WORKGROUP_SIZE + lid;
  let sc = live_joint_scenario(y, u.total_pad, true);
  if (sc == u.num_scenarios) {
    return;
  }
  let j = joint[sc];
  let p = y - j.pad_offset;
  let p2 = p % j.pad_dim2;
  let t = p / j.pad_dim2;
  let p1 = t % j.pad_dim1;
  let p0 = t / j.pad_dim1;
  let t0 = j.dim0 - 1u;
  let t1 = j.dim1 - 1u;
  let t2 = j.dim2 - 1u;
  if (u.extrapolate == 0u) {
    hpad[y] = h[j.state_offset + (min(p0, t0) * j.dim1 + min(p1, t1)) * j.dim2 + min(p2, t2)];
    return;
  }
  var v = r_of(0.0);
  for (var d0 = 0u; d0 < rule_terms(p0, t0); d0++) {
    for (var d1 = 0u; d1 < rule_terms(p1, t1); d1++) {
      for (var d2 = 0u; d2 < rule_terms(p2, t2); d2++) {
        // Each weight is an integer below 2^24; their product is exact in df64, rounded in f32.
        let w = r_mul(r_mul(r_of(rule_weight(p0, t0, d0)), r_of(rule_weight(p1, t1, d1))), r_of(rule_weight(p2, t2, d2)));
        v = r_add(v, r_mul(w, h[j.state_offset + (rule_at(p0, t0, d0) * j.dim1 + rule_at(p1, t1, d1)) * j.dim2 + rule_at(p2, t2, d2)]));
      }
    }
  }
  hpad[y] = v;
}

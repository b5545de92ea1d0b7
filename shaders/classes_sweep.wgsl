// classes_sweep.wgsl
// bindings (group 0):
//   @binding(0) u: Uniforms (uniform)
//   @binding(1) scenarios: array<ScenarioInfo> (read)
//   @binding(2) joint: array<JointInfo> (read)
//   @binding(3) tables: array<i32> (read)
//   @binding(4) coef: array<Real> (read)
//   @binding(5) hpad: array<Real> (read)
//   @binding(6) gap: array<Real> (read_write)
//   @binding(7) policy: array<u32> (read_write)
//   @binding(8) changes: array<atomic<u32>> (read_write)
// uniforms:
//   total_states: u32
//   num_scenarios: u32
//   greedy: u32
//   residual: u32
//   axis_sums: u32
//   real_zero: u32
//
// One Bellman step of the joint multi-class model (docs/model.md §10) for every state n of every
// scenario of a batch, one thread per state: the f32 twin of classesStep in
// src/model/classes/bellman.ts, on the padded box classes_pad.wgsl fills (lumped overflow):
//   wait (every n_c < S_c): Σ_c (w_c/λ_c)·n_c + w_pow·P0 + Σ_c τλ_c·(H(n + e_c) − h(n)),
//   serve a (b ≤ n_c):      Σ_c (w_c/λ_c)·n_c + kappa[a] + (τ/l)·Σ_rows Σ_e p·(H(n + shift + off + e) − h(n)),
// the minimum over the allowed actions (wait first, then a = 1, 2, … on ties), and the greedy
// action in `policy`. Sums of differences keep f32's digits where h grows like n². The kernel rows
// are those of compile.ts. With axis_sums = 1, a product kernel (deterministic service) with a
// slot of per-axis sums (classes_axis.wgsl, dispatched before this sweep) is summed over them as
// the CPU's stateValues does, len_0 terms of two at kernel origin o = n + shift:
//   Σ_k P(k)·(H(o + k) − h(n)) = Σ_k p_0(k)·(F_1(o + k·s_0) + P_{>0}·(H(o + k·s_0) − h(n))).
// With greedy = 0 it is an evaluation sweep of modified policy iteration: only the stored action.
// With residual = 1 too, the stored action's cost is replaced by the per-state cost at
// coef[resid_base + x] (a refinement round's scaled f64 residual, jointRefine.ts): the sweep then
// evaluates the correction to the CPU's f64 values, so f32 carries only the digits that are left.
// The header (structs, uniforms, bindings, entry point) is generated from the kernel descriptor
// in src/solve/gpu/jointKernels.ts; live_joint_scenario and the arithmetic type `Real` come from
// shaders/lib: f32 for the stage, or double-float (real_df64.wgsl) for the measured df64 Bellman
// step of src/solve/gpu/jointStep.ts, the same code over another type.

// (τ/l)·Σ p·(H − h(n)) of serving a: the part of a serve value that moves with h.
fn serve_sum(j: JointInfo, a: u32, base: u32, hx: Real) -> Real {
  let rec = j.action_base + 5u * a;
  let origin = i32(base) + tables[rec + 2u];
  let end = u32(tables[rec + 4u]);
  var acc = r_of(0.0);
  let frec = j.factor_base + 7u * a;
  let slot = tables[frec];
  if (u.axis_sums == 1u && slot >= 0) {
    let o = u32(origin);
    let f = j.fprobs_base + u32(tables[frec + 1u]);
    let len = u32(tables[frec + 2u]);
    let s0 = j.pad_dim1 * j.pad_dim2;
    let f1 = j.axis_base + u32(slot) * (j.classes - 1u) * j.pad_states + (o - j.pad_offset);
    let mass = coef[j.mass_base + 3u * a];
    for (var k = 0u; k < len; k++) {
      acc = r_add(acc, r_mul(coef[f + k], r_add(hpad[f1 + k * s0], r_mul(mass, r_sub(hpad[o + k * s0], hx)))));
    }
    return r_mul(coef[j.kappa_base + j.actions + a], acc);
  }
  for (var r = u32(tables[rec + 3u]); r < end; r++) {
    let row = j.row_base + 3u * r;
    let at = u32(origin + tables[row]);
    let len = u32(tables[row + 1u]);
    let pb = j.probs_base + u32(tables[row + 2u]);
    for (var e = 0u; e < len; e++) {
      acc = r_add(acc, r_mul(coef[pb + e], r_sub(hpad[at + e], hx)));
    }
  }
  return r_mul(coef[j.kappa_base + j.actions + a], acc);
}

fn serve_value(j: JointInfo, a: u32, base: u32, hold: Real, hx: Real) -> Real {
  return r_add(r_add(hold, coef[j.kappa_base + a]), serve_sum(j, a, base, hx));
}

// Σ_c τλ_c·(H(n + e_c) − h(n)): the part of the wait value that moves with h.
fn wait_drift(j: JointInfo, base: u32, stride: vec3<u32>, hx: Real) -> Real {
  var drift = r_of(0.0);
  for (var c = 0u; c < j.classes; c++) {
    drift = r_add(drift, r_mul(coef[j.coef_base + 3u + c], r_sub(hpad[base + stride[c]], hx)));
  }
  return drift;
}

fn wait_value(j: JointInfo, base: u32, stride: vec3<u32>, hold: Real, hx: Real) -> Real {
  return r_add(r_add(hold, coef[j.coef_base + 6u]), wait_drift(j, base, stride, hx));
}

// Serving a = (class, batch) needs batch ≤ n_class.
fn serve_allowed(j: JointInfo, a: u32, n: vec3<u32>) -> bool {
  let rec = j.action_base + 5u * a;
  return u32(tables[rec + 1u]) <= n[u32(tables[rec])];
}

fn run(wg: u32, lid: u32) {
  let idx = wg * WORKGROUP_SIZE + lid;
  let sc = live_joint_scenario(idx, u.total_states, false);
  if (sc == u.num_scenarios) {
    return;
  }
  let j = joint[sc];
  let x = idx - j.state_offset;
  let t = x / j.dim2;
  let n = vec3<u32>(t / j.dim1, t % j.dim1, x % j.dim2);
  let dims = vec3<u32>(j.dim0, j.dim1, j.dim2);
  let stride = vec3<u32>(j.pad_dim1 * j.pad_dim2, j.pad_dim2, 1u);
  let base = j.pad_offset + n.x * stride.x + n.y * stride.y + n.z;
  let hx = hpad[base];
  var hold = r_of(0.0);
  var can_wait = true;
  for (var c = 0u; c < j.classes; c++) {
    hold = r_add(hold, r_mul(coef[j.coef_base + c], r_of(f32(n[c]))));
    can_wait = can_wait && n[c] + 1u < dims[c];
  }
  let evaluating = u.greedy == 0u;
  if (evaluating && u.residual == 1u) {
    // The stored action is allowed here (the host sends the CPU's greedy policy).
    let fixed = policy[idx];
    let r = coef[j.resid_base + x];
    if (fixed == 0u) {
      gap[idx] = r_add(r, wait_drift(j, base, stride, hx));
    } else {
      gap[idx] = r_add(r, serve_sum(j, fixed, base, hx));
    }
    return;
  }
  if (evaluating) {
    let fixed = policy[idx];
    if (fixed == 0u && can_wait) {
      gap[idx] = wait_value(j, base, stride, hold, hx);
      return;
    }
    if (fixed > 0u && fixed < j.actions && serve_allowed(j, fixed, n)) {
      gap[idx] = serve_value(j, fixed, base, hold, hx);
      return;
    }
    // A stored action not allowed here (from a warm start): take the minimum instead.
  }
  var best = r_of(3.0e38);
  var arg = 0u;
  if (can_wait) {
    best = wait_value(j, base, stride, hold, hx);
  }
  for (var a = 1u; a < j.actions; a++) {
    if (!serve_allowed(j, a, n)) {
      continue;
    }
    let v = serve_value(j, a, base, hold, hx);
    if (r_lt(v, best)) {
      best = v;
      arg = a;
    }
  }
  gap[idx] = best;
  // Count greedy-action changes per scenario: the host stops the f32 stage once they cease.
  if (!evaluating && policy[idx] != arg) {
    policy[idx] = arg;
    atomicAdd(&changes[sc], 1u);
  }
}

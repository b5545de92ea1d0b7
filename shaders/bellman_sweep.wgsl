// bellman_sweep.wgsl
// bindings (group 0):
//   @binding(0) u: Uniforms (uniform)
//   @binding(1) scenarios: array<ScenarioInfo> (read)
//   @binding(2) state_scenario: array<u32> (read)
//   @binding(3) actions: array<ActionInfo> (read)
//   @binding(4) coef: array<f32> (read)
//   @binding(5) h: array<f32> (read)
//   @binding(6) gap: array<f32> (read_write)
//   @binding(7) policy: array<u32> (read_write)
//   @binding(8) changes: array<atomic<u32>> (read_write)
// uniforms:
//   total_states: u32
//   greedy: u32
//
// One Bellman step of the transformed MDP (spec §3) for every state of every scenario of a
// batch, one thread per (scenario, state); the f32 twin of bellmanStep in src/policy/greedy.ts:
//   gap[s]    = min_a [ c̃(s,a) + (τ/y_a)·(E_a h(s) − h(s)) ]
//   policy[s] = the first minimising action (wait, then b = 1, 2, …), as on the CPU.
// Serving b moves s to s − b + k with k from the arrival pmf; the part of k that passes S is
// valued by the quadratic tail extrapolation of spec §4 through the precomputed triple of
// coefficients on h(S), h(S−1), h(S−2).
// With greedy = 0 the kernel is an evaluation sweep of modified policy iteration instead: it
// applies only the stored action policy[s] (B times cheaper) and leaves the policy alone;
// the Odoni bounds are only read after greedy sweeps.
// Serve rows that pass S far are not stochastic (the extrapolation has coefficients of both
// signs, some large) and make value iteration diverge, so this f32 stage leaves serve-b out
// from unstable_first on, except serve-B where no serve action is left (s ≥
// all_unstable_from), whose overflow pack.ts lumps into h(S) where even that row is far from
// stochastic (stageTailCoef). The f64 polish on the CPU uses every action and the model's tail.
// The header (structs, uniforms, bindings, entry point) is generated from the kernel
// descriptor in src/solve/gpu/kernels.ts.

// Value of serving b in state s (offset of the sum by −h(s), see below).
fn serve_value(info: ScenarioInfo, a: ActionInfo, s: u32, b: u32, hold: f32, hs: f32, d0: f32, d1: f32, d2: f32) -> f32 {
  let base = info.state_offset;
  let j0 = i32(s) - i32(b) + a.pmf_offset;
  let n_in = min(i32(info.last) - j0 + 1, a.pmf_length);
  // Sums of pmf·(h(j) − h(s)) rather than pmf·h(j) − h(s): h grows like s², its steps do not,
  // so the differences keep f32 sums accurate (the pmf and tail masses add up to 1).
  var acc = 0.0;
  for (var i = 0; i < n_in; i++) {
    acc += coef[a.pmf_start + u32(i)] * (h[base + u32(j0 + i)] - hs);
  }
  if (i32(s) >= a.tail_first) {
    let r = a.tail_start + 3u * (s - u32(a.tail_first));
    acc += coef[r] * d0 + coef[r + 1u] * d1 + coef[r + 2u] * d2;
  }
  return hold + a.cost + a.rate * acc;
}

// Whether serving b in s is in the f32 stage's action set (pack.ts: stageUsable).
fn usable(info: ScenarioInfo, a: ActionInfo, s: u32, b: u32) -> bool {
  return i32(s) < a.unstable_first || (s >= info.all_unstable_from && b == info.max_batch);
}

fn run(wg: u32, lid: u32) {
  let idx = wg * WORKGROUP_SIZE + lid;
  if (idx >= u.total_states) {
    return;
  }
  let sc = state_scenario[idx];
  let info = scenarios[sc];
  if (info.live == 0u) {
    return;
  }
  let base = info.state_offset;
  let s = idx - base;
  let top = info.last;
  let hs = h[idx];
  let hold = info.cost_slope * f32(s);
  let d0 = h[base + top] - hs;
  let d1 = h[base + top - 1u] - hs;
  let d2 = h[base + top - 2u] - hs;
  let evaluating = u.greedy == 0u;
  if (evaluating) {
    let fixed = policy[idx];
    if (fixed == 0u && s < top) {
      gap[idx] = hold + info.wait_cost + info.wait_rate * (h[idx + 1u] - hs);
      return;
    }
    if (fixed > 0u && fixed <= min(s, info.max_batch)) {
      let a = actions[info.action_offset + fixed - 1u];
      if (usable(info, a, s, fixed)) {
        gap[idx] = serve_value(info, a, s, fixed, hold, hs, d0, d1, d2);
        return;
      }
    }
    // A stored action outside the action set (from a warm start): take the minimum instead.
  }
  var best = 3.0e38;
  var arg = 0u;
  if (s < top) {
    best = hold + info.wait_cost + info.wait_rate * (h[idx + 1u] - hs);
  }
  let bmax = min(s, info.max_batch);
  for (var b = 1u; b <= bmax; b++) {
    let a = actions[info.action_offset + b - 1u];
    if (!usable(info, a, s, b)) {
      continue;
    }
    let v = serve_value(info, a, s, b, hold, hs, d0, d1, d2);
    if (v < best) {
      best = v;
      arg = b;
    }
  }
  gap[idx] = best;
  // Count greedy-action changes per scenario: the host stops the f32 stage once they cease.
  if (!evaluating && policy[idx] != arg) {
    policy[idx] = arg;
    atomicAdd(&changes[sc], 1u);
  }
}

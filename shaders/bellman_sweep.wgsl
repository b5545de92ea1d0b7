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
// One Bellman step of the transformed (queue, phase) MDP (spec §3, §7) for every state of every
// scenario of a batch, one thread per (scenario, flat state x = s·M + j); each scenario has its
// own S, B and number of arrival phases M (M = 1 for Poisson arrivals). The f32 twin of
// bellmanStep in src/policy/greedy.ts, on the layout of docs/mmpp.md ("Compiled model layout"):
//   gap[x]    = min_a [ c̃(x,a) + (τ/y_a)·(E_a h(x) − h(x)) ]
//   policy[x] = the first minimising action (wait, then b = 1, 2, …), as on the CPU.
// wait (s < S):  c̃ = cost_slope·s + kappa[j],
//                τ/y·(E h − h) = τλ_j·(h(s+1, j) − h(x)) + Σ_{j'≠j} τQ_jj'·(h(s, j') − h(x)).
// serve b:       c̃ = cost_slope·s + kappa[b·M + j], rate τ/l(b); the in-range part of E h is one
//                contiguous dot product of the count block run pmf_start + j·pmf_length·M (ending
//                phase fastest) with the h run from (s − b + pmf_offset)·M, nIn·M long; the part
//                that passes S is valued by the quadratic tail extrapolation of spec §4, per
//                ending phase Σ_j' c0·h(S, j') + c1·h(S−1, j') + c2·h(S−2, j').
// Sums are taken as Σ p·(h(y) − h(x)) (rows have mass 1): h grows like s², its steps do not,
// so f32 keeps the digits that matter.
// With greedy = 0 the kernel is an evaluation sweep of modified policy iteration instead: it
// applies only the stored action policy[x] (B times cheaper) and leaves the policy alone;
// the Odoni bounds are only read after greedy sweeps.
// Serve rows that pass S far are not stochastic (the extrapolation has coefficients of both
// signs, some large) and make value iteration diverge, so this f32 stage leaves serve-b out
// from unstable_first on, except serve-B where no serve action is left (s ≥
// all_unstable_from), whose overflow pack.ts lumps into h(S, j') where even that row is far
// from stochastic (stageTailCoef). The f64 polish on the CPU uses every action and the model's tail.
// The header (structs, uniforms, bindings, entry point) is generated from the kernel
// descriptor in src/solve/gpu/kernels.ts.

// Value of serving b in state (s, j) (offset of the sum by −h(x), see above).
fn serve_value(info: ScenarioInfo, a: ActionInfo, s: u32, j: u32, b: u32, hold: f32, hx: f32) -> f32 {
  let M = info.phases;
  let base = info.state_offset;
  let j0 = i32(s) - i32(b) + a.pmf_offset;
  let n_in = min(i32(info.last) - j0 + 1, a.pmf_length);
  var acc = 0.0;
  if (n_in > 0) {
    let len = u32(n_in) * M;
    let p = a.pmf_start + j * u32(a.pmf_length) * M;
    let q = base + u32(j0) * M;
    for (var e = 0u; e < len; e++) {
      acc += coef[p + e] * (h[q + e] - hx);
    }
  }
  if (i32(s) >= a.tail_first) {
    let r = a.tail_start + ((s - u32(a.tail_first)) * M + j) * M * 3u;
    let top = base + info.last * M;
    for (var jj = 0u; jj < M; jj++) {
      let c = r + 3u * jj;
      acc += coef[c] * (h[top + jj] - hx) + coef[c + 1u] * (h[top - M + jj] - hx) + coef[c + 2u] * (h[top - 2u * M + jj] - hx);
    }
  }
  return hold + coef[info.kappa_base + b * M + j] + a.rate * acc;
}

// Value of waiting in state (s, j), s < S, at global index idx.
fn wait_value(info: ScenarioInfo, idx: u32, s: u32, j: u32, hold: f32, hx: f32) -> f32 {
  let M = info.phases;
  let r = info.rates_base;
  var drift = coef[r + j] * (h[idx + M] - hx);
  let row = info.state_offset + s * M;
  for (var jj = 0u; jj < M; jj++) {
    if (jj != j) {
      drift += coef[r + M + j * M + jj] * (h[row + jj] - hx);
    }
  }
  return hold + coef[info.kappa_base + j] + drift;
}

// Whether serving b in level s is in the f32 stage's action set (pack.ts: stageUsable).
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
  let x = idx - info.state_offset;
  let s = x / info.phases;
  let j = x - s * info.phases;
  let top = info.last;
  let hx = h[idx];
  let hold = info.cost_slope * f32(s);
  let evaluating = u.greedy == 0u;
  if (evaluating) {
    let fixed = policy[idx];
    if (fixed == 0u && s < top) {
      gap[idx] = wait_value(info, idx, s, j, hold, hx);
      return;
    }
    if (fixed > 0u && fixed <= min(s, info.max_batch)) {
      let a = actions[info.action_offset + fixed - 1u];
      if (usable(info, a, s, fixed)) {
        gap[idx] = serve_value(info, a, s, j, fixed, hold, hx);
        return;
      }
    }
    // A stored action outside the action set (from a warm start): take the minimum instead.
  }
  var best = 3.0e38;
  var arg = 0u;
  if (s < top) {
    best = wait_value(info, idx, s, j, hold, hx);
  }
  let bmax = min(s, info.max_batch);
  for (var b = 1u; b <= bmax; b++) {
    let a = actions[info.action_offset + b - 1u];
    if (!usable(info, a, s, b)) {
      continue;
    }
    let v = serve_value(info, a, s, j, b, hold, hx);
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

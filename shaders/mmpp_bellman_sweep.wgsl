// mmpp_bellman_sweep.wgsl
// bindings (group 0):
//   @binding(0) u: Uniforms (uniform)
//   @binding(1) actions: array<MmppActionInfo> (read)
//   @binding(2) coef: array<f32> (read)
//   @binding(3) h: array<f32> (read)
//   @binding(4) gap: array<f32> (read_write)
//   @binding(5) policy: array<u32> (read_write)
//   @binding(6) changes: array<atomic<u32>> (read_write)
// uniforms:
//   total_states: u32
//   greedy: u32
//   last: u32
//   phases: u32
//   max_batch: u32
//   all_unstable_from: u32
//   kappa_base: u32
//   rates_base: u32
//   generator_base: u32
//   tau: f32
//   cost_slope: f32
//   wait_cost: f32
//
// One Bellman step of the transformed (s, j) MDP of spec §7 (RVI of §3 with the state (s, j)),
// one thread per flat state x = s·M + j of one compiled MMPP model; the f32 twin of
// mmppBellmanStep in src/policy/mmpp/greedy.ts, on the layout of docs/mmpp.md ("Compiled
// model layout"):
//   gap[x]    = min_a [ c̃(x,a) + (τ/y_a)·(E_a h(x) − h(x)) ]
//   policy[x] = the first minimising action (wait, then b = 1, 2, …), as on the CPU.
// wait (s < S):  c̃ = cost_slope·s + wait_cost,
//                τ/y·(E h − h) = τ·(λ_j·(h(s+1, j) − h(x)) + Σ_{j'≠j} Q_jj'·(h(s, j') − h(x))).
// serve b:       c̃ = cost_slope·s + kappa[b·M + j], rate τ/l(b); the in-range part of E h is one
//                contiguous dot product of the pmf run pmf_start + j·pmf_length·M (ending phase
//                fastest) with the h run from (s − b + pmf_offset)·M, nIn·M long; past S the
//                §4 tail per ending phase, Σ_j' c0·h(S, j') + c1·h(S−1, j') + c2·h(S−2, j').
// Sums are taken as Σ p·(h(y) − h(x)) (rows have mass 1): h grows like s², its steps do not,
// so f32 keeps the digits that matter.
// With greedy = 0 it is an evaluation sweep of modified policy iteration: only the stored
// action policy[x] (B times cheaper), the policy is left alone.
// As in bellman_sweep.wgsl, serve rows far from stochastic (the tail extrapolation) are left
// out from unstable_first on, except serve-B where nothing else serves (s ≥ all_unstable_from);
// the f64 polish on the CPU uses every action and the model's own tail.
// The header (structs, uniforms, bindings, entry point) is generated from the kernel
// descriptor in src/solve/gpu/mmppKernels.ts.

fn serve_value(a: MmppActionInfo, s: u32, j: u32, b: u32, hold: f32, hx: f32) -> f32 {
  let M = u.phases;
  let S = u.last;
  let j0 = i32(s) - i32(b) + a.pmf_offset;
  let n_in = min(i32(S) - j0 + 1, a.pmf_length);
  var acc = 0.0;
  if (n_in > 0) {
    let len = u32(n_in) * M;
    let p_base = a.pmf_start + j * u32(a.pmf_length) * M;
    let h_base = u32(j0) * M;
    for (var e = 0u; e < len; e++) {
      acc += coef[p_base + e] * (h[h_base + e] - hx);
    }
  }
  if (i32(s) >= a.tail_first) {
    let r = a.tail_start + ((s - u32(a.tail_first)) * M + j) * M * 3u;
    for (var jj = 0u; jj < M; jj++) {
      let c = r + 3u * jj;
      acc += coef[c] * (h[S * M + jj] - hx) + coef[c + 1u] * (h[(S - 1u) * M + jj] - hx) + coef[c + 2u] * (h[(S - 2u) * M + jj] - hx);
    }
  }
  return hold + coef[u.kappa_base + b * M + j] + a.rate * acc;
}

fn wait_value(x: u32, s: u32, j: u32, hold: f32, hx: f32) -> f32 {
  let M = u.phases;
  var drift = coef[u.rates_base + j] * (h[x + M] - hx);
  for (var jj = 0u; jj < M; jj++) {
    if (jj != j) {
      drift += coef[u.generator_base + j * M + jj] * (h[s * M + jj] - hx);
    }
  }
  return hold + u.wait_cost + u.tau * drift;
}

// Whether serving b in level s is in the f32 stage's action set (mmppPack.ts: mmppStageUsable).
fn usable(a: MmppActionInfo, s: u32, b: u32) -> bool {
  return i32(s) < a.unstable_first || (s >= u.all_unstable_from && b == u.max_batch);
}

fn run(wg: u32, lid: u32) {
  let x = wg * WORKGROUP_SIZE + lid;
  if (x >= u.total_states) {
    return;
  }
  let M = u.phases;
  let s = x / M;
  let j = x - s * M;
  let top = u.last;
  let hx = h[x];
  let hold = u.cost_slope * f32(s);
  let evaluating = u.greedy == 0u;
  if (evaluating) {
    let fixed = policy[x];
    if (fixed == 0u && s < top) {
      gap[x] = wait_value(x, s, j, hold, hx);
      return;
    }
    if (fixed > 0u && fixed <= min(s, u.max_batch)) {
      let a = actions[fixed - 1u];
      if (usable(a, s, fixed)) {
        gap[x] = serve_value(a, s, j, fixed, hold, hx);
        return;
      }
    }
    // A stored action outside the action set (from a warm start): take the minimum instead.
  }
  var best = 3.0e38;
  var arg = 0u;
  if (s < top) {
    best = wait_value(x, s, j, hold, hx);
  }
  let bmax = min(s, u.max_batch);
  for (var b = 1u; b <= bmax; b++) {
    let a = actions[b - 1u];
    if (!usable(a, s, b)) {
      continue;
    }
    let v = serve_value(a, s, j, b, hold, hx);
    if (v < best) {
      best = v;
      arg = b;
    }
  }
  gap[x] = best;
  // Count greedy-action changes: the host stops the f32 stage once they cease.
  if (!evaluating && policy[x] != arg) {
    policy[x] = arg;
    atomicAdd(&changes[0], 1u);
  }
}

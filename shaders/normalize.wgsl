// normalize.wgsl
// bindings (group 0):
//   @binding(0) u: Uniforms (uniform)
//   @binding(1) scenarios: array<ScenarioInfo> (read)
//   @binding(2) state_scenario: array<u32> (read)
//   @binding(3) gap: array<f32> (read)
//   @binding(4) h: array<f32> (read_write)
// uniforms:
//   total_states: u32
//
// The relative-value normalisation of RVI, per scenario, with reference state x = 0, i.e.
// (s, j) = (0, 0) (as in the CPU RVI):
//   h(x) ← h(x) + gap(x) − gap(0)   (= V_{n+1}(x) − V_{n+1}(0), since gap = V_{n+1} − h_n).
// Runs after bellman_sweep in the same pass; each thread writes only its own h(x).

fn run(wg: u32, lid: u32) {
  let idx = wg * WORKGROUP_SIZE + lid;
  if (idx >= u.total_states) {
    return;
  }
  let info = scenarios[state_scenario[idx]];
  if (info.live == 0u) {
    return;
  }
  h[idx] = h[idx] + (gap[idx] - gap[info.state_offset]);
}

// bounds_reduce.wgsl
// bindings (group 0):
//   @binding(0) u: Uniforms (uniform)
//   @binding(1) scenarios: array<ScenarioInfo> (read)
//   @binding(2) gap: array<Real> (read)
//   @binding(3) changes: array<atomic<u32>> (read_write)
//   @binding(4) bounds: array<BoundsOut> (read_write)
// uniforms:
//   num_scenarios: u32
//   real_zero: u32
//
// One workgroup per scenario: the Odoni bounds m_n = min_x gap(x), M_n = max_x gap(x) of the
// last sweep, and the number of greedy-action changes since the previous reduction (the
// counter is reset). Only this small buffer is copied back to the host, every k sweeps.
// Converged (inactive) scenarios keep their last bounds. The gap and the bounds are `Real`
// (shaders/lib: f32, or double-float for the df64 step of src/solve/gpu/jointStep.ts).

var<workgroup> lo: array<Real, WORKGROUP_SIZE>;
var<workgroup> hi: array<Real, WORKGROUP_SIZE>;

fn run(wg: u32, lid: u32) {
  // wg is uniform across the workgroup, so every barrier below is reached by all threads.
  let valid = wg < u.num_scenarios;
  let info = scenarios[select(0u, wg, valid)];
  let live = valid && info.live != 0u;
  var mn = r_of(3.0e38);
  var mx = r_of(-3.0e38);
  if (live) {
    let n = info.states;
    for (var x = lid; x < n; x += WORKGROUP_SIZE) {
      let g = gap[info.state_offset + x];
      mn = r_min(mn, g);
      mx = r_max(mx, g);
    }
  }
  lo[lid] = mn;
  hi[lid] = mx;
  workgroupBarrier();
  for (var stride = WORKGROUP_SIZE / 2u; stride > 0u; stride = stride / 2u) {
    if (lid < stride) {
      lo[lid] = r_min(lo[lid], lo[lid + stride]);
      hi[lid] = r_max(hi[lid], hi[lid + stride]);
    }
    workgroupBarrier();
  }
  if (live && lid == 0u) {
    bounds[wg] = BoundsOut(lo[0], hi[0], atomicExchange(&changes[wg], 0u), 0u);
  }
}

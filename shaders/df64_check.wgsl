// df64_check.wgsl
// bindings (group 0):
//   @binding(0) u: Uniforms (uniform)
//   @binding(1) operands: array<Real> (read)
//   @binding(2) results: array<Real> (read_write)
// uniforms:
//   count: u32
//   real_zero: u32
//
// The double-float operations of shaders/lib/real_df64.wgsl on the device, one thread per
// operand triple (a, b, c): a + b, a − b, a·b, a·b + c and the error-free transforms
// two_sum(a.hi, b.hi), two_prod(a.hi, b.hi), which test/gpu/df64.gpu.test.ts checks against exact
// rational arithmetic (a compiler that reassociated or contracted them would show here).

fn run(wg: u32, lid: u32) {
  let i = wg * WORKGROUP_SIZE + lid;
  if (i >= u.count) {
    return;
  }
  let a = operands[3u * i];
  let b = operands[3u * i + 1u];
  let c = operands[3u * i + 2u];
  let o = 6u * i;
  results[o] = r_add(a, b);
  results[o + 1u] = r_sub(a, b);
  results[o + 2u] = r_mul(a, b);
  results[o + 3u] = r_add(r_mul(a, b), c);
  results[o + 4u] = two_sum(a.x, b.x);
  results[o + 5u] = two_prod(a.x, b.x);
}

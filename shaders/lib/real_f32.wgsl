// The arithmetic type of the joint kernels (`Real`), f32: each operation is the plain f32 one, so
// a kernel written against these functions compiles to the f32 code it replaced. real_df64.wgsl
// is the same interface in double-float (two f32 per value); the kernel descriptor picks one.
alias Real = f32;

fn r_of(x: f32) -> Real { return x; }
fn r_hi(a: Real) -> f32 { return a; }
fn r_lo(a: Real) -> f32 { return 0.0; }
fn r_add(a: Real, b: Real) -> Real { return a + b; }
fn r_sub(a: Real, b: Real) -> Real { return a - b; }
fn r_mul(a: Real, b: Real) -> Real { return a * b; }
fn r_lt(a: Real, b: Real) -> bool { return a < b; }
fn r_min(a: Real, b: Real) -> Real { return min(a, b); }
fn r_max(a: Real, b: Real) -> Real { return max(a, b); }

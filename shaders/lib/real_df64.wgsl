// The arithmetic type of the joint kernels (`Real`) in double-float: a value is hi + lo, two f32
// with |lo| ≤ ulp(hi)/2, about 48 significant bits (u = 2^-24; relative rounding of an operation
// a few u² = 2^-48). The same interface as real_f32.wgsl. The algorithms are those of Joldes,
// Muller and Popescu (ACM TOMS 44(2), 2017): the sum is AccurateDWPlusDW (relative error ≤ 3u² +
// 13u³, under cancellation too, where the sloppy sum has no relative bound), the product
// DWTimesDW1 (≤ 7u²) on Dekker's exact product, since WGSL's fma() is not fused on every device
// (llvmpipe rounds the product first: test/gpu/df64.gpu.test.ts).
// The error-free transforms below are exact only if the compiler neither reassociates nor folds
// them, and Mesa folds (a + b) − a to b: every intermediate they cancel is multiplied by
// passed through keep(), an xor with a uniform 0 the compiler cannot see through (df64.ts: REAL_ZERO). The test checks
// two_sum and two_prod exact, and each operation's error, against exact rational arithmetic.
alias Real = vec2<f32>;

// x, hidden from the compiler's algebra: through an integer xor with u.real_zero = 0, which no
// float rewrite can see across (a product by a uniform 1 was not enough inside the kernels).
fn keep(x: f32) -> f32 { return bitcast<f32>(bitcast<u32>(x) ^ u.real_zero); }

// s + e = a + b exactly (Knuth's TwoSum, no condition on a and b).
fn two_sum(a: f32, b: f32) -> vec2<f32> {
  let s = keep(a + b);
  let bb = keep(s - a);
  return vec2<f32>(s, (a - (s - bb)) + (b - bb));
}

// s + e = a + b exactly when |a| ≥ |b| (Dekker's Fast2Sum).
fn quick_two_sum(a: f32, b: f32) -> vec2<f32> {
  let s = keep(a + b);
  return vec2<f32>(s, b - (s - a));
}

// Veltkamp's split: x = hi + lo, each of 12 bits, so the products of halves are exact in f32.
fn split(x: f32) -> vec2<f32> {
  let c = keep(4097.0 * x);
  let hi = keep(c - (c - x));
  return vec2<f32>(hi, x - hi);
}

// p + e = a·b exactly (Dekker's product; exact whatever the compiler contracts, every partial
// product being exact).
fn two_prod(a: f32, b: f32) -> vec2<f32> {
  let p = keep(a * b);
  let x = split(a);
  let y = split(b);
  return vec2<f32>(p, ((x.x * y.x - p) + x.x * y.y + x.y * y.x) + x.y * y.y);
}

fn r_of(x: f32) -> Real { return vec2<f32>(x, 0.0); }
fn r_hi(a: Real) -> f32 { return a.x; }
fn r_lo(a: Real) -> f32 { return a.y; }

fn r_add(a: Real, b: Real) -> Real {
  let s = two_sum(a.x, b.x);
  let t = two_sum(a.y, b.y);
  let v = quick_two_sum(s.x, s.y + t.x);
  return quick_two_sum(v.x, t.y + v.y);
}

fn r_sub(a: Real, b: Real) -> Real { return r_add(a, -b); }

fn r_mul(a: Real, b: Real) -> Real {
  let c = two_prod(a.x, b.x);
  return quick_two_sum(c.x, c.y + (a.x * b.y + a.y * b.x));
}

// Normalised pairs compare by hi, then lo.
fn r_lt(a: Real, b: Real) -> bool { return a.x < b.x || (a.x == b.x && a.y < b.y); }
fn r_min(a: Real, b: Real) -> Real { return select(b, a, r_lt(a, b)); }
fn r_max(a: Real, b: Real) -> Real { return select(a, b, r_lt(a, b)); }

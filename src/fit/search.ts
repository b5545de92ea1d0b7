/**
 * Minimises a function of one variable on [lo, hi]: a grid of 121 points finds the best
 * bracket (the objectives here can have several shallow minima), then golden-section search
 * refines it to 1e-10 of the interval.
 */
export function minimize1d(f: (x: number) => number, lo: number, hi: number): number {
  const N = 120;
  let best = 0;
  let bestValue = Infinity;
  const values: number[] = [];
  for (let i = 0; i <= N; i++) {
    const v = f(lo + ((hi - lo) * i) / N);
    values.push(v);
    if (v < bestValue) {
      bestValue = v;
      best = i;
    }
  }
  let a = lo + ((hi - lo) * Math.max(0, best - 1)) / N;
  let b = lo + ((hi - lo) * Math.min(N, best + 1)) / N;
  const g = (Math.sqrt(5) - 1) / 2;
  let x1 = b - g * (b - a);
  let x2 = a + g * (b - a);
  let f1 = f(x1);
  let f2 = f(x2);
  while (b - a > 1e-10 * (hi - lo)) {
    if (f1 <= f2) {
      b = x2;
      x2 = x1;
      f2 = f1;
      x1 = b - g * (b - a);
      f1 = f(x1);
    } else {
      a = x1;
      x1 = x2;
      f1 = f2;
      x2 = a + g * (b - a);
      f2 = f(x2);
    }
  }
  const x = (a + b) / 2;
  return f(x) <= bestValue ? x : lo + ((hi - lo) * best) / N;
}

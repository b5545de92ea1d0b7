/**
 * Finds the cheapest static batch size b in [lo, hi] for a cost known only pointwise (an exact
 * evaluation, ~0.3–1 s each for large B). Up to EXHAUSTIVE sizes every b is evaluated; above,
 * a geometric grid of about GRID sizes is evaluated, then the bracket around the best grid point
 * is searched again with a finer grid, until the bracket is small enough to evaluate whole.
 * That finds the minimum whenever the cost is unimodal in b between grid points (it is on every
 * scenario we have tried: small b overloads the server, large b waits too long), with ~50
 * evaluations at B = 1024 instead of 1024.
 */
const EXHAUSTIVE = 64;
const GRID = 24;
const REFINE = 8;

export function searchStaticBatch(lo: number, hi: number, cost: (b: number) => number): Map<number, number> {
  const seen = new Map<number, number>();
  const at = (b: number): number => {
    let c = seen.get(b);
    if (c === undefined) {
      c = cost(b);
      seen.set(b, c);
    }
    return c;
  };
  if (hi - lo + 1 <= EXHAUSTIVE) {
    for (let b = lo; b <= hi; b++) at(b);
    return seen;
  }
  let points = geometric(lo, hi, GRID);
  for (;;) {
    for (const b of points) at(b);
    let best = points[0];
    for (const b of points) if (at(b) < at(best)) best = b;
    const i = points.indexOf(best);
    const left = points[Math.max(0, i - 1)];
    const right = points[Math.min(points.length - 1, i + 1)];
    if (right - left + 1 <= 2 * REFINE) {
      for (let b = left; b <= right; b++) at(b);
      return seen;
    }
    points = linear(left, right, 2 * REFINE);
  }
}

function geometric(lo: number, hi: number, n: number): number[] {
  const out = new Set<number>([lo, hi]);
  for (let i = 1; i < n - 1; i++) out.add(Math.round(lo * Math.pow(hi / lo, i / (n - 1))));
  return [...out].sort((a, b) => a - b);
}

function linear(lo: number, hi: number, n: number): number[] {
  const out = new Set<number>([lo, hi]);
  for (let i = 1; i < n - 1; i++) out.add(Math.round(lo + ((hi - lo) * i) / (n - 1)));
  return [...out].sort((a, b) => a - b);
}

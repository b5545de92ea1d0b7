/** Timing helpers shared by the benchmarks: medians of repeated runs after warm-up. */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Runs `fn` `warmup` times unmeasured, then `reps` times; returns each run's milliseconds. */
export async function timeRuns(fn: () => Promise<unknown> | unknown, reps: number, warmup = 2): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return out;
}

export function fmt(x: number, digits = 3): string {
  if (!Number.isFinite(x)) return String(x);
  if (x === 0) return '0';
  const a = Math.abs(x);
  return a >= 1000 || a < 0.01 ? x.toPrecision(digits) : x.toFixed(Math.max(0, digits - Math.floor(Math.log10(a)) - 1));
}

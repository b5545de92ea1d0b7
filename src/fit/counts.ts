/** Sample moments of the counts of a trace in back-to-back windows of one length. */
export interface WindowCounts {
  /** Window length, seconds. */
  readonly seconds: number;
  /** Number of whole windows in the trace. */
  readonly windows: number;
  readonly mean: number;
  readonly variance: number;
  /** Third central sample moment. */
  readonly third: number;
}

/**
 * Counts the arrivals of a sorted trace in consecutive windows of `seconds` from the first
 * timestamp (the partial last window is dropped) and returns their sample moments.
 * Two passes (mean first) keep the central moments free of cancellation.
 */
export function windowCounts(timestamps: ArrayLike<number>, seconds: number): WindowCounts {
  const n = timestamps.length;
  const t0 = timestamps[0];
  const windows = Math.floor((timestamps[n - 1] - t0) / seconds);
  const counts = new Float64Array(Math.max(windows, 0));
  for (let i = 0; i < n; i++) {
    const w = Math.floor((timestamps[i] - t0) / seconds);
    if (w < windows) counts[w]++;
  }
  let mean = 0;
  for (let w = 0; w < windows; w++) mean += counts[w];
  mean /= windows;
  let m2 = 0;
  let m3 = 0;
  for (let w = 0; w < windows; w++) {
    const d = counts[w] - mean;
    m2 += d * d;
    m3 += d * d * d;
  }
  return { seconds, windows, mean, variance: m2 / (windows - 1), third: m3 / windows };
}

/** `count` window lengths spaced geometrically from `from` to `to` seconds. */
export function geometricScales(from: number, to: number, count: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push(from * (to / from) ** (count === 1 ? 0 : i / (count - 1)));
  return out;
}

/**
 * Axis scales: "nice" tick values (1, 2, 2.5 or 5 times a power of ten) covering a data
 * range, and the linear map from data to pixels.
 */
export interface Axis {
  readonly min: number;
  readonly max: number;
  readonly ticks: number[];
}

const STEPS = [1, 2, 2.5, 5, 10];

/** Ticks spanning [lo, hi] with about `count` intervals; the axis is widened to whole ticks. */
export function niceAxis(lo: number, hi: number, count = 5): Axis {
  if (!(hi > lo)) {
    const pad = Math.abs(lo) > 0 ? Math.abs(lo) * 0.05 : 1;
    lo -= pad;
    hi += pad;
  }
  const raw = (hi - lo) / count;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = mag * (STEPS.find((s) => s * mag >= raw) ?? 10);
  const min = Math.floor(lo / step + 1e-9) * step;
  const max = Math.ceil(hi / step - 1e-9) * step;
  const ticks: number[] = [];
  for (let i = 0; min + i * step <= max + step * 1e-9; i++) ticks.push(roundTo(min + i * step, step));
  return { min, max, ticks };
}

/** Removes the binary noise of k·step (0.30000000000000004 → 0.3). */
function roundTo(v: number, step: number): number {
  const digits = Math.max(0, -Math.floor(Math.log10(step)) + 2);
  return Number(v.toFixed(Math.min(digits, 15)));
}

/** Maps [axis.min, axis.max] onto [from, to] pixels (to < from for a y axis pointing up). */
export function linear(axis: Axis, from: number, to: number): (v: number) => number {
  const k = (to - from) / (axis.max - axis.min);
  return (v) => from + (v - axis.min) * k;
}

/** Tick label: as few digits as the step needs. */
export function tickLabel(v: number, axis: Axis): string {
  const step = axis.ticks.length > 1 ? axis.ticks[1] - axis.ticks[0] : 1;
  const decimals = Math.max(0, Math.min(6, -Math.floor(Math.log10(step) + 1e-9) + (String(step).includes('.25') ? 1 : 0)));
  return v.toFixed(decimals);
}

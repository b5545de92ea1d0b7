import { ScenarioError } from '../model/errors.js';

/**
 * Quantities with units, as planners write them on a command line or in a request:
 * durations (`10ms`, `250us`, `250µs`, `0.01s`) and power (`120W`, `1.2kW`, `500mW`).
 * A bare number is refused on purpose: "10" could be seconds or milliseconds, and a
 * latency target off by 1000× is worse than an error.
 */
const DURATION_UNITS: Readonly<Record<string, number>> = { s: 1, ms: 1e-3, us: 1e-6, 'µs': 1e-6, 'μs': 1e-6, ns: 1e-9 };
const POWER_UNITS: Readonly<Record<string, number>> = { w: 1, kw: 1e3, mw: 1e-3 };

const QUANTITY = /^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)\s*([a-zµμ]+)\s*$/i;

function parseQuantity(
  text: string,
  field: string,
  units: Readonly<Record<string, number>>,
  what: string,
  example: string,
  caseless: boolean,
): number {
  const m = QUANTITY.exec(text);
  const expected = `a ${what} with a unit (${Object.keys(units).filter((u) => u !== 'μs').join(', ')}), e.g. ${example}`;
  if (!m) throw new ScenarioError(field, `must be ${expected} (got ${JSON.stringify(text)})`);
  const unit = caseless ? m[2].toLowerCase() : m[2];
  const factor = units[unit];
  if (factor === undefined) throw new ScenarioError(field, `has an unknown unit ${JSON.stringify(m[2])}: must be ${expected}`);
  const value = Number(m[1]) * factor;
  if (!Number.isFinite(value) || !(value > 0)) {
    throw new ScenarioError(field, `must be a positive ${what} (got ${JSON.stringify(text)})`);
  }
  return value;
}

/** Seconds from `10ms`, `250us`, `0.01s`, `5e-3 s`. */
export function parseDuration(text: string, field: string): number {
  // Units are case-sensitive for time: `ms` (milli) and `Ms` would differ; we accept only lowercase.
  return parseQuantity(text, field, DURATION_UNITS, 'duration', '10ms, 250us or 0.01s', false);
}

/** Watts from `120W`, `1.2kW`, `500mW` (case-insensitive: `120w` is unambiguous). */
export function parsePower(text: string, field: string): number {
  return parseQuantity(text, field, POWER_UNITS, 'power', '120W or 1.2kW', true);
}

/** A positive rate in requests/s: `20000`, `20000/s`, `2e4`. */
export function parseRate(text: string, field: string): number {
  const m = /^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)\s*(\/s)?\s*$/i.exec(text);
  const value = m ? Number(m[1]) : NaN;
  if (!m || !Number.isFinite(value) || !(value > 0)) {
    throw new ScenarioError(field, `must be a positive rate in requests/s, e.g. 20000 or 20000/s (got ${JSON.stringify(text)})`);
  }
  return value;
}

/** Compact human form of a duration in seconds: `7.5300 ms`, `850.00 µs`, `1.2000 s`. */
export function formatDuration(seconds: number, digits = 4): string {
  const a = Math.abs(seconds);
  if (a >= 1) return `${seconds.toFixed(digits)} s`;
  if (a >= 1e-3 || a === 0) return `${(seconds * 1e3).toFixed(digits)} ms`;
  return `${(seconds * 1e6).toFixed(Math.max(digits - 2, 0))} µs`;
}

export function formatPower(watts: number, digits = 4): string {
  return Math.abs(watts) >= 1e4 ? `${(watts / 1e3).toFixed(digits)} kW` : `${watts.toFixed(digits)} W`;
}

import { ScenarioError } from '../model/errors.js';

const UNITS: Record<string, number> = { s: 1, ms: 1e-3, us: 1e-6, 'µs': 1e-6, 'μs': 1e-6, ns: 1e-9 };

/**
 * Parses a duration into seconds: a number with a unit (`2ms`, `2.5 ms`, `500us`, `0.1s`,
 * `1e-3s`), or a bare number in `defaultUnit` when one is given (the `*_micros` parameters
 * of Triton and TF-Serving are microseconds). Without a default unit, a unit is required,
 * so that `delay=2` is not silently read as 2 seconds.
 */
export function parseDuration(text: string, field: string, defaultUnit?: keyof typeof UNITS): number {
  const m = /^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([a-zµμ]*)\s*$/.exec(text);
  if (!m) throw new ScenarioError(field, `must be a duration such as 2ms, 500us or 0.01s (got ${JSON.stringify(text)})`);
  const value = Number(m[1]);
  const unit = m[2] === '' ? defaultUnit : m[2];
  if (unit === undefined) {
    throw new ScenarioError(field, `needs a unit: s, ms, us or ns (got ${JSON.stringify(text)})`);
  }
  const scale = UNITS[unit];
  if (scale === undefined) throw new ScenarioError(field, `has unknown unit ${JSON.stringify(unit)}: use s, ms, us or ns`);
  const seconds = value * scale;
  if (!Number.isFinite(seconds)) throw new ScenarioError(field, `must be finite (got ${JSON.stringify(text)})`);
  return seconds;
}

/** Duration for display: µs below 1 ms, ms below 1 s, else s. */
export function formatDuration(seconds: number): string {
  if (seconds === 0) return '0';
  if (seconds < 1e-3) return `${+(seconds * 1e6).toPrecision(6)}us`;
  if (seconds < 1) return `${+(seconds * 1e3).toPrecision(6)}ms`;
  return `${+seconds.toPrecision(6)}s`;
}

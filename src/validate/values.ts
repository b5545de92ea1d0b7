/**
 * Reading one untrusted JSON value: is it an object, is it absent, how to show it in a message.
 * Every validator of the project (scenario, arrival process, fleet, requests) uses these, so a
 * refusal spells the offending value the same way wherever it was read.
 */
import { LimitError, ScenarioError } from '../model/errors.js';

export type Obj = Record<string, unknown>;

/** A plain JSON object (not null, not an array). */
export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Absent as the validators read it: missing, or null (proto3 JSON writes unset fields as null). */
export function isAbsent(v: unknown): v is undefined | null {
  return v === undefined || v === null;
}

/** The kind of a value, for "got …": strings quoted, numbers as written (NaN, Infinity), else its type. */
export function describe(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number') return String(v);
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v;
}

/** A value as JSON text, for "got …" where the whole value helps; NaN and ±Infinity as themselves (JSON would say null). */
export function literal(v: unknown): string {
  if (typeof v === 'number') return String(v);
  return JSON.stringify(v) ?? String(v);
}

/** `path.key`, or `key` at the root. */
export function at(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/** Refuses the first key of `o` not in `allowed`, naming it by its full path. */
export function rejectUnknown(o: Obj, path: string, allowed: readonly string[]): void {
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k)) throw new ScenarioError(at(path, k), `is not a known field (expected one of: ${allowed.join(', ')})`);
  }
}

/** `e` with its field put under `prefix` (`prefix.field`) when it is a ScenarioError or LimitError; else `e` itself. */
export function reroot(e: unknown, prefix: string): unknown {
  if (e instanceof LimitError) return new LimitError(`${prefix}.${e.field}`, e.reason, e.facts);
  if (e instanceof ScenarioError) return new ScenarioError(`${prefix}.${e.field}`, e.reason);
  return e;
}

/** Already under `prefix`: the prefix itself or `prefix.…`. */
const under = (prefix: string) => (field: string) => field === prefix || field.startsWith(`${prefix}.`);

/** Runs `f`, re-raising its refusals under `prefix` (see reroot); `keep` says which fields stay as they are. */
export function underField<T>(prefix: string, f: () => T, keep: (field: string) => boolean = under(prefix)): T {
  try {
    return f();
  } catch (e) {
    throw (e instanceof ScenarioError || e instanceof LimitError) && keep(e.field) ? e : reroot(e, prefix);
  }
}

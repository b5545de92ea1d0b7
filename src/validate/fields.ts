/**
 * Reading fields by their description (shape.ts): each reader checks one value and throws
 * ScenarioError(path, reason) naming the field and the bound it broke. Paths are built as
 * `parent.key` (just `key` at the root), so callers pass the parent object's path.
 */
import { ScenarioError } from '../model/errors.js';
import { fieldNames, type ArrayField, type EnumField, type Field, type KeysOf, type NumberRule, type ObjectShape, type Wording } from './shape.js';
import { at, describe, isAbsent, isObj, literal, rejectUnknown, type Obj } from './values.js';

function fieldOf<T extends Field>(shape: ObjectShape, key: string): T {
  const f = shape.fields[key];
  if (f === undefined) throw new Error(`no field ${key} in shape ${shape.name ?? shape.doc}`);
  return f as T;
}

/** Checks the bounds of a number already known to be finite. */
function checkBounds(v: number, path: string, rule: NumberRule): number {
  if (rule.integer && !Number.isInteger(v)) throw new ScenarioError(path, `must be an integer (got ${v})`);
  if (rule.above !== undefined && !(v > rule.above)) throw new ScenarioError(path, `must be > ${rule.above} (got ${v})`);
  if (rule.min !== undefined && v < rule.min) throw new ScenarioError(path, `must be ≥ ${rule.min} (got ${v})`);
  if (rule.max !== undefined && v > rule.max) throw new ScenarioError(path, `must be ≤ ${rule.max} (got ${v})`);
  return v;
}

/** A finite number within `rule`; the wording of a non-number follows `wording` (see Wording). */
export function checkNumber(v: unknown, path: string, rule: NumberRule, wording: Wording = 'plain'): number {
  if (wording === 'json') {
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new ScenarioError(path, `must be a finite number (got ${literal(v)})`);
    return checkBounds(v, path, rule);
  }
  if (typeof v !== 'number') throw new ScenarioError(path, `must be a number (got ${describe(v)})`);
  if (Number.isNaN(v)) throw new ScenarioError(path, 'must be a number (got NaN)');
  if (!Number.isFinite(v)) throw new ScenarioError(path, `must be finite (got ${v})`);
  return checkBounds(v, path, rule);
}

/** Number field `key` of `o` (at `path`); absent gives its default, or "is required". `rule` overrides the described bounds. */
export function readNumber<S extends ObjectShape>(o: Obj, shape: S, key: KeysOf<S, 'number'>, path: string, rule?: NumberRule): number {
  const v = optionalNumber(o, shape, key, path, rule);
  if (v === undefined) throw new ScenarioError(at(path, key), 'is required');
  return v;
}

/** Like readNumber, but an absent field without a default gives undefined. */
export function optionalNumber<S extends ObjectShape>(o: Obj, shape: S, key: KeysOf<S, 'number'>, path: string, rule?: NumberRule): number | undefined {
  const f = fieldOf<Extract<Field, { kind: 'number' }>>(shape, key);
  const v = o[key];
  if (isAbsent(v)) {
    if (f.required) throw new ScenarioError(at(path, key), 'is required');
    return f.default;
  }
  return checkNumber(v, at(path, key), rule ?? f, shape.wording);
}

type EnumValue<S extends ObjectShape, K extends keyof S['fields']> = S['fields'][K] extends EnumField<infer T> ? T : never;

/** "A or B", "one of A, B, C". */
function choices(values: readonly string[]): string {
  return values.length === 2 ? `${values[0]} or ${values[1]}` : `one of ${values.join(', ')}`;
}

/** Enum field `key`; absent (or empty, where that means unset) gives its default. */
export function readEnum<S extends ObjectShape, K extends KeysOf<S, 'enum'>>(o: Obj, shape: S, key: K, path: string): EnumValue<S, K> {
  const f = fieldOf<EnumField>(shape, key);
  const v = o[key];
  if (isAbsent(v) || (f.emptyIsDefault && v === '')) {
    if (f.default === undefined) throw new ScenarioError(at(path, key), 'is required');
    return f.default as EnumValue<S, K>;
  }
  const alias = typeof v === 'string' ? f.aliases?.[v] : undefined;
  if (alias !== undefined) return alias as EnumValue<S, K>;
  const s = typeof v === 'string' && f.caseless ? v.toUpperCase() : v;
  if (typeof s !== 'string' || !f.values.includes(s)) {
    throw new ScenarioError(at(path, key), `must be ${choices(f.values)} (got ${shape.wording === 'json' ? literal(v) : describe(v)})`);
  }
  return s as EnumValue<S, K>;
}

/** String field `key`; only a missing one (not null) takes the default. */
export function readString<S extends ObjectShape>(o: Obj, shape: S, key: KeysOf<S, 'string'>, path: string): string {
  const f = fieldOf<Extract<Field, { kind: 'string' }>>(shape, key);
  const v = o[key];
  if (v === undefined && f.default !== undefined) return f.default;
  if (typeof v !== 'string' || (f.nonEmpty && v.trim() === '')) {
    throw new ScenarioError(at(path, key), `must be a ${f.nonEmpty ? 'non-empty ' : ''}string (got ${literal(v)})`);
  }
  return v;
}

/** `v` as an object of `shape` (at `path`): no other fields than the shape's. */
export function checkObject(v: unknown, path: string, shape: ObjectShape): Obj {
  if (!isObj(v)) throw new ScenarioError(path, shape.wording === 'json' ? 'must be an object' : `must be an object (got ${describe(v)})`);
  rejectUnknown(v, path, fieldNames(shape));
  return v;
}

/** Sub-object field `key`; absent is refused when it is required, else undefined. */
export function readObject<S extends ObjectShape>(o: Obj, shape: S, key: KeysOf<S, 'object'>, path: string): Obj | undefined {
  const f = fieldOf<ObjectShape>(shape, key);
  const v = o[key];
  if (isAbsent(v)) {
    if (f.required) throw new ScenarioError(at(path, key), 'is required');
    return undefined;
  }
  return checkObject(v, at(path, key), f);
}

/** The document itself: a JSON object with only the shape's fields (unknown ones named from the root). */
export function checkRoot(v: unknown, name: string, shape: ObjectShape): Obj {
  if (!isObj(v)) throw new ScenarioError(name, shape.wording === 'json' ? 'must be a JSON object' : `must be a JSON object (got ${describe(v)})`);
  rejectUnknown(v, '', fieldNames(shape));
  return v;
}

/** An array, of any length (the caller checks the length with its own message). */
export function checkArray(v: unknown, path: string): unknown[] {
  if (!Array.isArray(v)) throw new ScenarioError(path, `must be an array (got ${describe(v)})`);
  return v;
}

/** Array field `key` with the described length bounds: "must be a non-empty array", "has N entries, at most M are allowed". */
export function readList<S extends ObjectShape>(o: Obj, shape: S, key: KeysOf<S, 'array'>, path: string): unknown[] {
  const f = fieldOf<ArrayField>(shape, key);
  const v = o[key];
  const min = f.minItems ?? 0;
  if (!Array.isArray(v) || v.length < min) {
    throw new ScenarioError(at(path, key), min === 0 ? 'must be an array' : min === 1 ? 'must be a non-empty array' : `must be an array of at least ${min} entries`);
  }
  if (f.maxItems !== undefined && v.length > f.maxItems) throw new ScenarioError(at(path, key), `has ${v.length} entries, at most ${f.maxItems} are allowed`);
  return v;
}

/**
 * A count in a request: a non-negative integer, also as a decimal string (proto3 JSON writes
 * 64-bit integers as strings). Absent gives undefined, and so does 0 unless `zeroIsValue`.
 */
export function countValue(v: unknown, field: string, zeroIsValue = false): number | undefined {
  if (isAbsent(v)) return undefined;
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) throw new ScenarioError(field, `must be a non-negative integer (got ${literal(v)})`);
  return n === 0 && !zeroIsValue ? undefined : n;
}

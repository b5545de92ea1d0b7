/**
 * Field names as the proto3 JSON mapping reads them: a parser must accept both a field's JSON name
 * (lowerCamelCase, what the project writes: `arrivalRate`) and its proto name (`arrival_rate`).
 * The readers look fields up by their JSON names, so input is put into those first: each proto
 * name is renamed to its JSON name, and a field given under both names at once is refused.
 */
import { ScenarioError } from '../model/errors.js';
import type { Field } from './shape.js';
import { at, isAbsent, isObj, rejectUnknown, type Obj } from './values.js';

/** The proto field name whose JSON name is `jsonName` (protoc's rule backwards): maxBatchSize → max_batch_size, p99Target → p99_target. */
export function protoName(jsonName: string): string {
  return jsonName.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/**
 * `o` with every field of `names` (JSON names) that is given by its proto name renamed to the
 * JSON name; `o` itself when none is. Refuses a field given under both names (at `path`), unless
 * one of them is null.
 */
export function renameProtoFields(o: Obj, path: string, names: readonly string[]): Obj {
  let out: Obj | undefined;
  for (const name of names) {
    const proto = protoName(name);
    if (proto === name || !Object.hasOwn(o, proto)) continue;
    // Absent (missing or null) under one name: the other one counts.
    if (!isAbsent(o[name]) && !isAbsent(o[proto])) throw new ScenarioError(at(path, name), `give either ${name} or ${proto} (its proto field name), not both`);
    out ??= { ...o };
    if (isAbsent(o[name])) out[name] = o[proto];
    delete out[proto];
  }
  return out ?? o;
}

/** renameProtoFields, then no other fields than `allowed` (named by their JSON names in the refusal). */
export function knownFields(o: Obj, path: string, allowed: readonly string[]): Obj {
  const named = renameProtoFields(o, path, allowed);
  rejectUnknown(named, path, allowed);
  return named;
}

/** Can a value of this field hold objects with named fields somewhere inside? */
function holdsObjects(f: Field): boolean {
  switch (f.kind) {
    case 'object':
    case 'map':
      return true;
    case 'array':
      return holdsObjects(f.items);
    case 'anyOf':
      return f.options.some(holdsObjects);
    default:
      return false;
  }
}

/**
 * `value` read as `field` describes it, with proto names renamed to JSON names at every depth
 * (objects, array items, map values; map keys are the user's names and stay). Values that do not
 * have the described type are left as they are, for the readers to refuse with their own words;
 * nothing is copied where nothing is renamed.
 */
export function jsonNames(value: unknown, field: Field, path = ''): unknown {
  switch (field.kind) {
    case 'object': {
      if (!isObj(value)) return value;
      const named = renameProtoFields(value, path, Object.keys(field.fields));
      return mapEntries(named, (k) => field.fields[k], path);
    }
    case 'map':
      return isObj(value) ? mapEntries(value, () => field.values, path) : value;
    case 'array': {
      if (!Array.isArray(value) || !holdsObjects(field.items)) return value;
      let out: unknown[] | undefined;
      value.forEach((v, i) => {
        const w = jsonNames(v, field.items, `${path}[${i}]`);
        if (w !== v) (out ??= [...value])[i] = w;
      });
      return out ?? value;
    }
    case 'anyOf': {
      const fits = field.options.find((o) => (Array.isArray(value) ? o.kind === 'array' : isObj(value) && (o.kind === 'object' || o.kind === 'map')));
      return fits ? jsonNames(value, fits, path) : value;
    }
    default:
      return value;
  }
}

/** `o` with each entry that has a description (`fieldOf`) read by it; `o` itself when none changed. */
function mapEntries(o: Obj, fieldOf: (key: string) => Field | undefined, path: string): Obj {
  let out: Obj | undefined;
  for (const [k, v] of Object.entries(o)) {
    const f = fieldOf(k);
    if (f === undefined || !holdsObjects(f)) continue;
    const w = jsonNames(v, f, at(path, k));
    if (w !== v) (out ??= { ...o })[k] = w;
  }
  return out ?? o;
}

/**
 * Field descriptions (shape.ts) → JSON Schema, draft 2020-12. The schema says what the readers
 * check field by field (types, required fields, unknown fields refused, enum values, bounds) and
 * what each description adds in `also`; rules only code can check (a table as long as
 * maxBatchSize, a generator's rows summing to 0, capacity) are left to the validator.
 */
import type { EnumField, Field, JsonSchema, NumberField, ObjectShape } from './shape.js';

export const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

type Defs = Record<string, JsonSchema>;

/** `base` with `also` conjoined: merged when they share no keyword, else under allOf. */
function conjoin(base: JsonSchema, also: JsonSchema | undefined): JsonSchema {
  if (also === undefined) return base;
  const clash = Object.keys(also).some((k) => k in base);
  return clash ? { ...base, allOf: [also] } : { ...base, ...also };
}

function numberSchema(f: NumberField): JsonSchema {
  return {
    type: f.integer ? 'integer' : 'number',
    ...(f.above !== undefined ? { exclusiveMinimum: f.above } : {}),
    ...(f.min !== undefined ? { minimum: f.min } : {}),
    ...(f.max !== undefined ? { maximum: f.max } : {}),
    ...(f.default !== undefined ? { default: f.default } : {}),
  };
}

/** A regular expression matching `s` in any letter case (JSON Schema patterns take no flags). */
export function caselessPattern(values: readonly string[]): string {
  const one = (s: string) =>
    [...s].map((c) => (c.toLowerCase() !== c.toUpperCase() ? `[${c.toUpperCase()}${c.toLowerCase()}]` : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return `^(?:${values.map(one).join('|')})$`;
}

function enumSchema(f: EnumField): JsonSchema {
  const spelled = [...f.values, ...(f.emptyIsDefault ? [''] : []), ...Object.keys(f.aliases ?? {})];
  const def = f.default !== undefined ? { default: f.default } : {};
  if (!f.caseless) return { type: 'string', enum: spelled, ...def };
  // The enum lists the canonical spellings (what editors offer); the pattern admits any case.
  return { type: 'string', anyOf: [{ enum: spelled }, { pattern: caselessPattern(f.values) }], ...def };
}

function objectSchema(f: ObjectShape, defs: Defs): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const [k, sub] of Object.entries(f.fields)) properties[k] = toSchema(sub, defs);
  const required = Object.entries(f.fields)
    .filter(([, sub]) => sub.required)
    .map(([k]) => k);
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
    ...(f.exactlyOne ? { oneOf: f.exactlyOne.map((k) => ({ required: [k] })) } : {}),
  };
}

function shapeSchema(f: Field, defs: Defs): JsonSchema {
  switch (f.kind) {
    case 'number':
      return numberSchema(f);
    case 'enum':
      return enumSchema(f);
    case 'string':
      // nonEmpty: the validator trims, so at least one non-space character.
      return { type: 'string', ...(f.nonEmpty ? { pattern: '\\S' } : {}), ...(f.default !== undefined ? { default: f.default } : {}) };
    case 'array':
      return {
        type: 'array',
        items: toSchema(f.items, defs),
        ...(f.minItems !== undefined ? { minItems: f.minItems } : {}),
        ...(f.maxItems !== undefined ? { maxItems: f.maxItems } : {}),
      };
    case 'map':
      return { type: 'object', additionalProperties: toSchema(f.values, defs) };
    case 'anyOf':
      return { anyOf: f.options.map((o) => toSchema(o, defs)) };
    case 'object':
      return objectSchema(f, defs);
  }
}

/** The schema of one field; named object shapes go to `defs` once and are referred to. */
export function toSchema(f: Field, defs: Defs): JsonSchema {
  const body = conjoin({ description: f.doc, ...shapeSchema(f, defs) }, f.also);
  if (f.kind !== 'object' || f.name === undefined) return body;
  const known = defs[f.name];
  if (known !== undefined && JSON.stringify(known) !== JSON.stringify(body)) throw new Error(`two different shapes are named ${f.name}`);
  defs[f.name] = body;
  return { $ref: `#/$defs/${f.name}` };
}

/** A whole document's schema: the root shape inline, its named parts under $defs. */
export function documentSchema(root: ObjectShape, title: string): JsonSchema {
  const defs: Defs = {};
  const body = toSchema({ ...root, name: undefined }, defs);
  return { $schema: DRAFT_2020_12, title, ...body, ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}) };
}

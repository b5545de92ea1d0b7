/**
 * Field descriptions: what a JSON field may hold (type, bounds, enum values, whether it is
 * required, its default), written once. The readers in fields.ts check a value against them and
 * schema.ts turns them into the published JSON Schema, so the two cannot drift apart. What a
 * description cannot say (a rule across fields, such as "cv only with GAMMA") stays in the
 * validator's code, and its schema counterpart is given beside the description as `also`.
 */

/** A JSON Schema fragment (draft 2020-12), as plain data. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/**
 * How refusals are worded. `plain` (scenario, arrival process): "must be a number (got "x")",
 * "must be an object (got 5)", values shown by kind. `json` (fleet): "must be a finite number
 * (got {"a":1})", "must be an object", values shown as JSON.
 */
export type Wording = 'plain' | 'json';

export interface NumberRule {
  /** Inclusive lower bound. */
  readonly min?: number;
  /** Exclusive lower bound. */
  readonly above?: number;
  /** Inclusive upper bound. */
  readonly max?: number;
  readonly integer?: boolean;
}

interface Described {
  /** One line for the schema's description (units, meaning). */
  readonly doc: string;
  /** Refused when absent. */
  readonly required?: boolean;
  /** Schema that the validator's cross-field code adds to this field; conjoined with the derived one. */
  readonly also?: JsonSchema;
}

export interface NumberField extends NumberRule, Described {
  readonly kind: 'number';
  /** Taken when absent. */
  readonly default?: number;
}

export interface EnumField<T extends string = string> extends Described {
  readonly kind: 'enum';
  readonly values: readonly T[];
  readonly default?: T;
  /** Any letter case is accepted and read as upper case. */
  readonly caseless?: boolean;
  /** The empty string means "unset" (the default). */
  readonly emptyIsDefault?: boolean;
  /** Other spellings of a value, e.g. the proto's zero name METHOD_AUTO for AUTO. */
  readonly aliases?: Readonly<Record<string, T>>;
}

export interface StringField extends Described {
  readonly kind: 'string';
  readonly nonEmpty?: boolean;
  readonly default?: string;
}

export interface ArrayField extends Described {
  readonly kind: 'array';
  readonly items: Field;
  readonly minItems?: number;
  readonly maxItems?: number;
}

/** An object whose keys are names chosen by the user (e.g. service times keyed by class). */
export interface MapField extends Described {
  readonly kind: 'map';
  readonly values: Field;
}

/** One of several forms (e.g. a generator given flat or as rows). */
export interface AnyOfField extends Described {
  readonly kind: 'anyOf';
  readonly options: readonly Field[];
}

export interface ObjectShape<F extends Readonly<Record<string, Field>> = Readonly<Record<string, Field>>> extends Described {
  readonly kind: 'object';
  /** Its fields in the order refusals list them ("expected one of: …"). */
  readonly fields: F;
  /** Exactly one of these fields must be given (a proto oneof). */
  readonly exactlyOne?: readonly string[];
  /** Set to publish the shape once under the schema's $defs and refer to it by name. */
  readonly name?: string;
  readonly wording?: Wording;
}

export type Field = NumberField | EnumField | StringField | ArrayField | MapField | AnyOfField | ObjectShape;

/** The keys of an object shape's fields of one kind, so readers are typed by the shape. */
export type KeysOf<S extends ObjectShape, K extends Field['kind']> = {
  [P in keyof S['fields']]: S['fields'][P] extends { kind: K } ? P : never;
}[keyof S['fields']] &
  string;

/** [minItems, maxItems] of an array field (0 and Infinity where unset). */
export function lengthBounds(f: ArrayField): [number, number] {
  return [f.minItems ?? 0, f.maxItems ?? Infinity];
}

/** The field names of a shape, in order. */
export function fieldNames(shape: ObjectShape): string[] {
  return Object.keys(shape.fields);
}

// Constructors keep the descriptions short where they are written.
export const number = (doc: string, rule: Omit<NumberField, 'kind' | 'doc'> = {}): NumberField => ({ kind: 'number', doc, ...rule });
export function enumOf<T extends string>(doc: string, values: readonly T[], opts: Omit<EnumField<NoInfer<T>>, 'kind' | 'doc' | 'values'> = {}): EnumField<T> {
  return { kind: 'enum', doc, values, ...opts };
}
export const string = (doc: string, opts: Omit<StringField, 'kind' | 'doc'> = {}): StringField => ({ kind: 'string', doc, ...opts });
export const array = (doc: string, items: Field, opts: Omit<ArrayField, 'kind' | 'doc' | 'items'> = {}): ArrayField => ({ kind: 'array', doc, items, ...opts });
export const mapOf = (doc: string, values: Field, opts: Omit<MapField, 'kind' | 'doc' | 'values'> = {}): MapField => ({ kind: 'map', doc, values, ...opts });
export const anyOf = (doc: string, options: readonly Field[], opts: Omit<AnyOfField, 'kind' | 'doc' | 'options'> = {}): AnyOfField => ({ kind: 'anyOf', doc, options, ...opts });
export function object<F extends Readonly<Record<string, Field>>>(doc: string, fields: F, opts: Omit<ObjectShape<F>, 'kind' | 'doc' | 'fields'> = {}): ObjectShape<F> {
  return { kind: 'object', doc, fields, ...opts };
}

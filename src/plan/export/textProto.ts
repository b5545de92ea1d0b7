import { ScenarioError } from '../../model/errors.js';

/**
 * A reader for the protobuf text format as Triton's config.pbtxt and TF Serving's
 * batching_parameters.txt use it (protobufjs reads only the binary and JSON forms): fields
 * `name: scalar`, `name { … }` or `name: { … }` (also `< … >`), lists `name: [ a, b ]` (of
 * messages also `name [ { … } ]`),
 * repeated fields by repetition, `#` comments, optional `,`/`;` separators, quoted strings.
 * Without the schema a scalar stays text (numbers, enums and strings alike); callers convert.
 */
export type TextValue = string | TextMessage;
export type TextMessage = Map<string, TextValue[]>;

export function parseTextProto(text: string, file: string): TextMessage {
  const tokens = tokenize(text, file);
  let i = 0;
  const fail = (why: string): never => {
    const t = tokens[Math.min(i, tokens.length - 1)];
    throw new ScenarioError(file, `line ${t ? t.line : 1}: ${why}`);
  };
  const peek = (): string | undefined => tokens[i]?.text;
  const message = (close: string | null): TextMessage => {
    const out: TextMessage = new Map();
    for (;;) {
      const t = peek();
      if (t === undefined) {
        if (close !== null) fail(`missing ${JSON.stringify(close)}`);
        return out;
      }
      if (t === close) {
        i++;
        return out;
      }
      if (!/^[A-Za-z_][A-Za-z0-9_.]*$/.test(t)) fail(`expected a field name, got ${JSON.stringify(t)}`);
      i++;
      const values = out.get(t) ?? [];
      out.set(t, values);
      let colon = false;
      if (peek() === ':') {
        colon = true;
        i++;
      }
      const v = peek();
      if (v === '{' || v === '<') {
        i++;
        values.push(message(v === '{' ? '}' : '>'));
      } else if (!colon && v !== '[') {
        fail(`field ${t} needs ':' before its value`);
      } else if (v === '[') {
        i++;
        while (peek() !== ']') {
          if (peek() === undefined) fail(`missing "]" in ${t}`);
          const item = peek()!;
          if (item === '{' || item === '<') {
            i++;
            values.push(message(item === '{' ? '}' : '>'));
          } else {
            values.push(scalar());
          }
          if (peek() === ',') i++;
        }
        i++;
      } else {
        values.push(scalar());
      }
      if (peek() === ',' || peek() === ';') i++;
    }
  };
  const scalar = (): string => {
    const t = peek();
    if (t === undefined || '{}[]<>:,;'.includes(t)) fail(`expected a value, got ${t === undefined ? 'the end' : JSON.stringify(t)}`);
    i++;
    return t!.startsWith('"') || t!.startsWith("'") ? unquote(t!) : t!;
  };
  return message(null);
}

/** The single value of a field (the last one, as protobuf does for a repeated scalar read as singular). */
export function field(m: TextMessage, name: string): TextValue | undefined {
  const v = m.get(name);
  return v === undefined || v.length === 0 ? undefined : v[v.length - 1];
}

export function messageField(m: TextMessage, name: string, file: string): TextMessage | undefined {
  const v = field(m, name);
  if (v !== undefined && typeof v === 'string') throw new ScenarioError(`${file}.${name}`, `must be a message ({ … }), got ${JSON.stringify(v)}`);
  return v;
}

/** An integer scalar field (Int64Value wrappers `{ value: n }` unwrapped); undefined when absent. */
export function intField(m: TextMessage, name: string, file: string): number | undefined {
  let v = field(m, name);
  if (v !== undefined && typeof v !== 'string') v = field(v, 'value');
  if (v === undefined) return undefined;
  const n = typeof v === 'string' ? Number(v) : NaN;
  if (!Number.isSafeInteger(n)) throw new ScenarioError(`${file}.${name}`, `must be an integer, got ${JSON.stringify(v)}`);
  return n;
}

/** A repeated integer field, in the order written. */
export function intList(m: TextMessage, name: string, file: string): number[] {
  return (m.get(name) ?? []).map((v) => {
    const n = typeof v === 'string' ? Number(v) : NaN;
    if (!Number.isSafeInteger(n)) throw new ScenarioError(`${file}.${name}`, `must hold integers, got ${JSON.stringify(v)}`);
    return n;
  });
}

/** One token of the text format: its text, line (1-based) and offset in the file. */
export interface Token {
  readonly text: string;
  readonly line: number;
  readonly start: number;
}

export function tokenize(text: string, file: string): Token[] {
  const out: Token[] = [];
  const re = /\s+|#[^\n]*|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|[{}[\]<>:,;]|[^\s{}[\]<>:,;#"']+/gy;
  let line = 1;
  let pos = 0;
  while (pos < text.length) {
    re.lastIndex = pos;
    const m = re.exec(text);
    if (m === null) throw new ScenarioError(file, `line ${line}: cannot read ${JSON.stringify(text.slice(pos, pos + 20))}`);
    const t = m[0];
    if (!/^\s/.test(t) && !t.startsWith('#')) out.push({ text: t, line, start: pos });
    line += t.split('\n').length - 1;
    pos = re.lastIndex;
  }
  return out;
}

function unquote(t: string): string {
  return t.slice(1, -1).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : c));
}

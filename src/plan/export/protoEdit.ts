import { parseTextProto, tokenize, type Token } from './textProto.js';

/**
 * Where the fields of a protobuf text-format file lie (offsets into the text), so that a merge
 * can change a value or insert a field and leave every other byte as the user wrote it.
 */
export interface FieldSpan {
  readonly name: string;
  readonly line: number;
  /** Offset of the field name. */
  readonly start: number;
  /** Offset just past its value. */
  readonly end: number;
  /** The value when it is one scalar token. */
  readonly scalar?: Token;
  /** The value when it is a message: the tokens between its braces (indices into tokens). */
  readonly body?: Body;
}

export interface Body {
  readonly from: number;
  readonly to: number;
  readonly open: Token;
  readonly close: Token;
}

export interface ProtoFile {
  readonly text: string;
  readonly tokens: Token[];
  /** The top-level fields. */
  readonly fields: FieldSpan[];
}

/** The file read (parseTextProto first, for its errors with line numbers) with its top-level spans. */
export function readProto(text: string, file: string): ProtoFile {
  parseTextProto(text, file);
  const tokens = tokenize(text, file);
  return { text, tokens, fields: fieldSpans(tokens, 0, tokens.length) };
}

const CLOSE: Record<string, string> = { '{': '}', '<': '>', '[': ']' };

export function fieldSpans(tokens: Token[], from: number, to: number): FieldSpan[] {
  const out: FieldSpan[] = [];
  let i = from;
  const matching = (k: number): number => {
    let depth = 0;
    for (let j = k; j < to; j++) {
      const t = tokens[j].text;
      if (t in CLOSE) depth++;
      else if (t === '}' || t === '>' || t === ']') depth--;
      if (depth === 0) return j;
    }
    return to - 1;
  };
  while (i < to) {
    const name = tokens[i++];
    if (tokens[i]?.text === ':') i++;
    const v = tokens[i];
    if (v.text in CLOSE) {
      const j = matching(i);
      const body = v.text === '[' ? undefined : { from: i + 1, to: j, open: v, close: tokens[j] };
      out.push({ name: name.text, line: name.line, start: name.start, end: tokens[j].start + 1, ...(body ? { body } : {}) });
      i = j + 1;
    } else {
      out.push({ name: name.text, line: name.line, start: name.start, end: v.start + v.text.length, scalar: v });
      i++;
    }
    if (tokens[i]?.text === ',' || tokens[i]?.text === ';') i++;
  }
  return out;
}

export function splice(text: string, start: number, end: number, replacement: string): string {
  return text.slice(0, start) + replacement + text.slice(end);
}

/** The field's text on one line, for a change note. */
export function compact(text: string, s: FieldSpan): string {
  return text
    .slice(s.start, s.end)
    .replace(/#[^\n]*/g, '')
    .replace(/\s+/g, ' ');
}

const lineStart = (text: string, at: number): number => text.lastIndexOf('\n', at - 1) + 1;
const lineEnd = (text: string, at: number): number => (text.indexOf('\n', at) < 0 ? text.length : text.indexOf('\n', at));

/** Removes a field: its whole line when nothing else is on it (a separator or comment after it aside). */
export function remove(text: string, s: FieldSpan): string {
  const ls = lineStart(text, s.start);
  const le = lineEnd(text, s.end);
  if (text.slice(ls, s.start).trim() === '' && /^\s*[,;]?\s*(#.*)?$/.test(text.slice(s.end, le))) return splice(text, ls, Math.min(le + 1, text.length), '');
  const after = /^[\s,;]*/.exec(text.slice(s.end))![0].replace(/\n[\s\S]*/, '');
  return splice(text, s.start, s.end + after.length, '');
}

/** Inserts lines after the line on which `at` lies, indented as that line. */
export function insertAfterLine(text: string, at: number, lines: string[]): string {
  const indent = /^[ \t]*/.exec(text.slice(lineStart(text, at)))![0];
  const le = lineEnd(text, at);
  const block = lines.map((l) => indent + l + '\n').join('');
  if (le === text.length) return text + (text.length > 0 && !text.endsWith('\n') ? '\n' : '') + block;
  return splice(text, le + 1, le + 1, block);
}

/** Inserts a field at the start of a file (after leading comments and blank lines). */
export function insertAtTop(text: string, lines: string[]): string {
  const m = /^(?:[ \t]*(?:#[^\n]*)?\n)*/.exec(text)![0];
  return splice(text, m.length, m.length, lines.map((l) => l + '\n').join(''));
}

/** Appends a field inside a message's braces: on its own line in a block written over lines, else before the brace. */
export function insertInBody(text: string, b: Body, inner: FieldSpan[], field: string): string {
  const ls = lineStart(text, b.close.start);
  if (text.slice(ls, b.close.start).trim() === '' && text.slice(b.open.start, b.close.start).includes('\n')) {
    const first = inner[0];
    const indent = first ? /^[ \t]*/.exec(text.slice(lineStart(text, first.start)))![0] : /^[ \t]*/.exec(text.slice(ls))![0] + '  ';
    return splice(text, ls, ls, `${indent}${field}\n`);
  }
  const before = text[b.close.start - 1];
  return splice(text, b.close.start, b.close.start, `${/\s/.test(before) ? '' : ' '}${field} `);
}

import type { Document, Node, Pair, YAMLMap } from 'yaml';
import { yaml } from './yamlLib.js';
import { ScenarioError } from '../../model/errors.js';

/**
 * A YAML file edited in place: the yaml Document API finds each node and its offsets, and only the
 * bytes of a changed value (or an inserted / removed key) are rewritten, so comments, quoting,
 * indentation and key order stay as the user wrote them.
 */
export interface YamlFile {
  readonly text: string;
  readonly doc: Document.Parsed;
  /** 1-based line of an offset. */
  readonly line: (offset: number) => number;
}

export function readYaml(text: string, file: string): YamlFile {
  const lc = new (yaml().LineCounter)();
  const doc = yaml().parseDocument(text, { lineCounter: lc, keepSourceTokens: false });
  const line = (offset: number): number => lc.linePos(offset).line;
  const err = doc.errors[0];
  if (err) throw new ScenarioError(file, `line ${line(err.pos[0])}: ${err.message.split('\n')[0]}`);
  return { text, doc, line };
}

export type YamlPath = readonly (string | number)[];

/** The map at a path, or a ScenarioError naming the file and line. */
export function mapAt(y: YamlFile, path: YamlPath, file: string, what: string): YAMLMap {
  const n = path.length === 0 ? y.doc.contents : y.doc.getIn(path, true);
  if (!yaml().isMap(n)) throw new ScenarioError(file, `line ${y.line((n as Node | null)?.range?.[0] ?? 0)}: ${what} must be a map (key: value lines)`);
  return n;
}

export function seqAt(y: YamlFile, path: YamlPath): unknown[] | undefined {
  const n = y.doc.getIn(path, true);
  return yaml().isSeq(n) ? n.items : undefined;
}

function pairOf(m: YAMLMap, key: string): Pair | undefined {
  return m.items.find((p) => (yaml().isScalar(p.key) ? p.key.value : p.key) === key);
}

/** The scalar's source text at map.key, undefined when absent. */
export function scalarText(y: YamlFile, m: YAMLMap, key: string): string | undefined {
  const v = pairOf(m, key)?.value;
  return yaml().isScalar(v) && v.range ? y.text.slice(v.range[0], v.range[1]) : undefined;
}

const lineStart = (text: string, at: number): number => text.lastIndexOf('\n', at - 1) + 1;
const lineEnd = (text: string, at: number): number => (text.indexOf('\n', at) < 0 ? text.length : text.indexOf('\n', at));
/** Just past the line on which a node ends (its range end may already be at the next line's start). */
const afterLine = (text: string, end: number): number => (text[end - 1] === '\n' ? end : Math.min(lineEnd(text, end) + 1, text.length));

/**
 * Sets map.key to a scalar (its value bytes replaced, else a key inserted after the map's last
 * key at its indentation) or, with `lines`, inserts a nested block `key:` + lines when absent.
 * Returns the new text.
 */
export function setKey(y: YamlFile, m: YAMLMap, key: string, value: string, file: string): string {
  const { text } = y;
  const pair = pairOf(m, key);
  if (pair) {
    const v = pair.value;
    if (!yaml().isScalar(v) || !v.range) throw new ScenarioError(file, `line ${y.line((pair.key as Node).range?.[0] ?? 0)}: ${key} must be a scalar`);
    return text.slice(0, v.range[0]) + value + text.slice(v.range[1]);
  }
  return insertKey(y, m, key, value);
}

/** Inserts key: value (or a nested map of scalars) as the map's last key. */
export function insertKey(y: YamlFile, m: YAMLMap, key: string, value: string | Readonly<Record<string, string>>): string {
  const { text } = y;
  const range = m.range!;
  const entries = typeof value === 'string' ? [] : Object.entries(value);
  if (m.flow) {
    const close = text.lastIndexOf('}', range[1]);
    const body = `${key}: ${typeof value === 'string' ? value : `{${entries.map(([k, v]) => `${k}: ${v}`).join(', ')}}`}`;
    return text.slice(0, close) + (m.items.length > 0 ? `, ${body}` : body) + text.slice(close);
  }
  const lines = typeof value === 'string' ? [`${key}: ${value}`] : [`${key}:`, ...entries.map(([k, v]) => `  ${k}: ${v}`)];
  const first = m.items[0]?.key as Node | undefined;
  if (!first?.range) throw new ScenarioError('yaml', 'an empty block map cannot take a key');
  const indent = ' '.repeat(first.range[0] - lineStart(text, first.range[0]));
  const last = m.items[m.items.length - 1];
  const end = ((last.value as Node | null)?.range ?? (last.key as Node).range!)[1];
  const at = afterLine(text, end);
  const block = lines.map((l) => indent + l + '\n').join('');
  return text.slice(0, at) + (at === text.length && !text.endsWith('\n') ? '\n' : '') + block + text.slice(at);
}

/** Removes map.key with its value (whole lines of a block map). */
export function removeKey(y: YamlFile, m: YAMLMap, key: string): string {
  const pair = pairOf(m, key);
  if (!pair || m.flow) return y.text;
  const start = lineStart(y.text, (pair.key as Node).range![0]);
  const end = afterLine(y.text, ((pair.value as Node | null)?.range ?? (pair.key as Node).range!)[1]);
  return y.text.slice(0, start) + y.text.slice(end);
}

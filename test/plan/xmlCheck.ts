/**
 * A small, strict XML well-formedness checker for the SVG tests (no XML parser is installed):
 * one root element, properly nested and closed tags, quoted unique attributes, only the five
 * predefined entities or numeric references, no stray '<' or '&'. Returns the elements with
 * their attributes, so tests can read the plotted points back.
 */
export interface XmlElement {
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
  /** Text directly inside the element (entities decoded). */
  text: string;
  readonly parent: XmlElement | null;
}

const NAME = /^[A-Za-z_:][-A-Za-z0-9_.:]*/;
const ENTITY = /^&(?:lt|gt|amp|quot|apos|#[0-9]+|#x[0-9A-Fa-f]+);/;

function decode(s: string, where: number): string {
  for (let i = s.indexOf('&'); i >= 0; i = s.indexOf('&', i + 1)) {
    if (!ENTITY.test(s.slice(i))) throw new Error(`bad entity reference at ${where + i}: ${JSON.stringify(s.slice(i, i + 10))}`);
  }
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#x([0-9A-Fa-f]+);/g, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#([0-9]+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&amp;/g, '&');
}

export function parseXml(doc: string): XmlElement[] {
  let i = 0;
  const all: XmlElement[] = [];
  const stack: XmlElement[] = [];
  let roots = 0;
  const fail = (msg: string): never => {
    throw new Error(`${msg} at offset ${i}: ${JSON.stringify(doc.slice(i, i + 40))}`);
  };
  if (doc.startsWith('<?xml')) {
    const end = doc.indexOf('?>');
    if (end < 0) fail('unterminated XML declaration');
    i = end + 2;
  }
  while (i < doc.length) {
    const lt = doc.indexOf('<', i);
    const chunk = lt < 0 ? doc.slice(i) : doc.slice(i, lt);
    if (chunk.includes('>')) fail("stray '>' in text");
    if (stack.length === 0) {
      if (chunk.trim() !== '') fail('text outside the root element');
    } else {
      stack[stack.length - 1].text += decode(chunk, i);
    }
    if (lt < 0) break;
    i = lt;
    if (doc.startsWith('<!--', i)) {
      const end = doc.indexOf('-->', i);
      if (end < 0) fail('unterminated comment');
      i = end + 3;
      continue;
    }
    if (doc.startsWith('</', i)) {
      const m = NAME.exec(doc.slice(i + 2));
      if (!m) fail('bad closing tag');
      const name = m![0];
      const j = i + 2 + name.length;
      const close = doc.indexOf('>', j);
      if (close < 0 || doc.slice(j, close).trim() !== '') fail('bad closing tag');
      const open = stack.pop();
      if (!open || open.name !== name) fail(`closing </${name}> does not match <${open?.name ?? 'nothing'}>`);
      i = close + 1;
      continue;
    }
    const m = NAME.exec(doc.slice(i + 1));
    if (!m) fail('bad tag name');
    const name = m![0];
    i += 1 + name.length;
    const attrs: Record<string, string> = {};
    for (;;) {
      const ws = /^\s*/.exec(doc.slice(i))![0].length;
      i += ws;
      if (doc.startsWith('/>', i) || doc[i] === '>') break;
      if (ws === 0) fail('attributes must be separated by white space');
      const a = NAME.exec(doc.slice(i));
      if (!a) fail('bad attribute name');
      i += a![0].length;
      if (doc[i] !== '=') fail('attribute without a value');
      const q = doc[i + 1];
      if (q !== '"' && q !== "'") fail('unquoted attribute value');
      const end = doc.indexOf(q, i + 2);
      if (end < 0) fail('unterminated attribute value');
      const raw = doc.slice(i + 2, end);
      if (raw.includes('<')) fail("'<' in an attribute value");
      if (a![0] in attrs) fail(`duplicate attribute ${a![0]}`);
      attrs[a![0]] = decode(raw, i + 2);
      i = end + 1;
    }
    const selfClosing = doc.startsWith('/>', i);
    i += selfClosing ? 2 : 1;
    if (stack.length === 0) {
      roots++;
      if (roots > 1) fail('more than one root element');
    }
    const e: XmlElement = { name, attrs, text: '', parent: stack[stack.length - 1] ?? null };
    all.push(e);
    if (!selfClosing) stack.push(e);
  }
  if (stack.length > 0) throw new Error(`unclosed <${stack[stack.length - 1].name}>`);
  if (roots !== 1) throw new Error('no root element');
  return all;
}

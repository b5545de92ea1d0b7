/**
 * Just enough XML to write SVG by hand: escaped text and attributes, and elements built
 * from plain objects. Numbers are written with at most two decimals (pixels), so files are
 * small and stable across runs.
 */
export type Attrs = Readonly<Record<string, string | number | undefined>>;

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** Pixel coordinates: two decimals, no trailing zeros, no "-0". */
export function px(v: number): string {
  const r = Math.round(v * 100) / 100;
  return String(Object.is(r, -0) ? 0 : r);
}

function attrs(a: Attrs): string {
  let out = '';
  for (const [k, v] of Object.entries(a)) {
    if (v === undefined) continue;
    out += ` ${k}="${escapeXml(typeof v === 'number' ? px(v) : v)}"`;
  }
  return out;
}

/** `<name attrs/>` or `<name attrs>children</name>`; children are already-serialised XML. */
export function el(name: string, a: Attrs = {}, children: readonly string[] = []): string {
  return children.length === 0 ? `<${name}${attrs(a)}/>` : `<${name}${attrs(a)}>${children.join('')}</${name}>`;
}

/** A text node (escaped). */
export function text(content: string, a: Attrs = {}): string {
  return `<text${attrs(a)}>${escapeXml(content)}</text>`;
}

export function svgDocument(width: number, height: number, title: string, body: readonly string[]): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    el(
      'svg',
      { xmlns: 'http://www.w3.org/2000/svg', width, height, viewBox: `0 0 ${width} ${height}`, 'font-family': 'sans-serif', 'font-size': 12 },
      [el('title', {}, [escapeXml(title)]), el('rect', { width, height, fill: 'white' }), ...body],
    ) +
    '\n'
  );
}

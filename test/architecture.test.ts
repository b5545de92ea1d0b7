import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import madge from 'madge';
import { describe, expect, it } from 'vitest';

/** The shape of the house (issue "one model"): no import circles, small files, folders that say their job. */
const SRC = join(import.meta.dirname, '..', 'src');
/** A file past this many lines is doing more than one job. */
const MAX_LINES = 300;

function walk(dir: string): string[] {
  const out: string[] = [dir];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
  }
  return out;
}

describe('src/ architecture', () => {
  it('has no import circles (madge over the TypeScript import graph)', async () => {
    const graph = await madge(SRC, { fileExtensions: ['ts'], tsConfig: join(SRC, '..', 'tsconfig.json') });
    // Sanity: the graph really holds the files (a misconfigured madge sees nothing and finds no circle).
    expect(Object.keys(graph.obj()).length).toBeGreaterThan(150);
    expect(graph.circular()).toEqual([]);
  });

  it(`has no source file over ${MAX_LINES} lines`, () => {
    const long: string[] = [];
    for (const dir of walk(SRC)) {
      for (const name of readdirSync(dir)) {
        if (!name.endsWith('.ts')) continue;
        const lines = readFileSync(join(dir, name), 'utf8').split('\n').length;
        if (lines > MAX_LINES + 1) long.push(`${relative(SRC, join(dir, name))}: ${lines}`);
      }
    }
    expect(long).toEqual([]);
  });

  it('every folder opens with a README that says its one job', () => {
    const missing = walk(SRC).filter((dir) => {
      try {
        const text = readFileSync(join(dir, 'README.md'), 'utf8');
        return !/^# .+\n\n\S/.test(text);
      } catch {
        return true;
      }
    });
    expect(missing.map((d) => relative(SRC, d) || '.')).toEqual([]);
  });
});

/**
 * Writes the JSON Schemas of the scenario and fleet files, generated from the field descriptions
 * the validators read by (src/model/shape.ts, src/fleet/shape.ts):
 *
 *   node --import tsx scripts/schema.ts          # rewrite docs/*.schema.json
 *   node --import tsx scripts/schema.ts --check  # exit 1 if they are out of date
 *
 * test/validate/schema.test.ts fails too when a committed schema differs from the generated one.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fleetSchema } from '../src/fleet/shape.js';
import { scenarioSchema } from '../src/model/shape.js';
import type { JsonSchema } from '../src/validate/index.js';

/** Each published schema: its path from the repository root and its generator. */
export const SCHEMAS: ReadonlyArray<readonly [string, () => JsonSchema]> = [
  ['docs/scenario.schema.json', scenarioSchema],
  ['docs/fleet.schema.json', fleetSchema],
];

/** Two-space JSON with arrays of plain values on one line (the enums and required lists stay readable). */
export function schemaText(s: JsonSchema): string {
  return `${JSON.stringify(s, null, 2).replace(/\[\n\s+([^[\]{}]*?)\n\s*\]/g, (_, items: string) => `[${items.split(/,\n\s*/).join(', ')}]`)}\n`;
}

const root = fileURLToPath(new URL('..', import.meta.url));

function main(check: boolean): number {
  let stale = 0;
  for (const [file, make] of SCHEMAS) {
    const text = schemaText(make());
    const path = `${root}${file}`;
    if (!check) writeFileSync(path, text);
    else if (readFileSync(path, 'utf8') !== text) {
      process.stderr.write(`${file} is out of date: run node --import tsx scripts/schema.ts\n`);
      stale++;
    }
  }
  return stale > 0 ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = main(process.argv.includes('--check'));

import { readFileSync } from 'node:fs';
import { ScenarioError } from '../model/errors.js';

/** Reads and parses a JSON file; errors name the file and what went wrong. */
export function readJsonFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ScenarioError(path, `cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new ScenarioError(path, `is not valid JSON (${(e as Error).message})`);
  }
}

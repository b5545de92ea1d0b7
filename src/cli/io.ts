import { readFileSync } from 'node:fs';
import { ScenarioError } from '../model/errors.js';

/** Reads a text file; a missing or unreadable one is a ScenarioError naming it. */
export function readTextFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new ScenarioError(path, `cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
}

/** Reads and parses a JSON file; errors name the file and what went wrong. */
export function readJsonFile(path: string): unknown {
  const text = readTextFile(path);
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new ScenarioError(path, `is not valid JSON (${(e as Error).message})`);
  }
}

import { readFileSync } from 'node:fs';
import type { Distribution, Scenario } from '../../src/model/scenario.js';
import { specScenario } from './scenarios.js';

export interface SpecCase {
  arrivalRate: number;
  powerWeight: number;
  distribution: Distribution;
  cv?: number;
  g: number;
  meanResponseTimeMs: number;
  meanPower: number;
  controlLimit: number;
}

export const SPEC_CASES: SpecCase[] = (
  JSON.parse(readFileSync(new URL('../fixtures/spec-table.json', import.meta.url), 'utf8')) as { cases: SpecCase[] }
).cases;

export function specCaseScenario(c: SpecCase): Scenario {
  const s = specScenario(c.arrivalRate, c.powerWeight);
  s.serviceTime = { ...s.serviceTime, distribution: c.distribution, ...(c.cv !== undefined ? { cv: c.cv } : {}) };
  return s;
}

export function specCaseName(c: SpecCase): string {
  return `λ=${c.arrivalRate} w_pow=${c.powerWeight} ${c.distribution}${c.cv !== undefined ? ` cv=${c.cv}` : ''}`;
}

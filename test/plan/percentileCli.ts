import { expect } from 'vitest';
import type { PercentilePlanResult } from '../../src/plan/percentileTarget.js';
import { runCli } from '../helpers/cli.js';

/**
 * `batchwise plan FILE --p99-target T` twice, with --json and as text: both succeed, the JSON's
 * policy meets the target, and the text's first line states the JSON's power and exact p99.
 */
export async function planP99BothWays(file: string, target: string, seconds: number): Promise<{ r: PercentilePlanResult; text: string }> {
  const json = await runCli('plan', file, '--p99-target', target, '--json');
  expect(json.code).toBe(0);
  const r = JSON.parse(json.out) as PercentilePlanResult;
  expect(r.target).toMatchObject({ level: 'p99', seconds, probability: 0.99 });
  expect(r.policy.percentile).toBeLessThanOrEqual(seconds);
  const text = await runCli('plan', file, '--p99-target', target);
  expect(text.code).toBe(0);
  const ms = (x: number): string => `${(x * 1e3).toFixed(4)} ms`;
  expect(text.out).toContain(`p99 target ${ms(seconds)}: least mean power ${r.policy.meanPower.toFixed(4)} W, exact p99 ${ms(r.policy.percentile)}`);
  return { r, text: text.out };
}

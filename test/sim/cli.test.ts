import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Comparison } from '../../src/sim/compare.js';
import type { SimulationResult } from '../../src/sim/result.js';
import { specScenario } from '../helpers/scenarios.js';
import { TINY, TINY_TRACE } from './tiny.js';
import { runCli as run } from '../helpers/cli.js';

let dir: string;
let spec: string;
let tiny: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'batchwise-sim-'));
  spec = join(dir, 'spec.json');
  tiny = join(dir, 'tiny.json');
  writeFileSync(spec, JSON.stringify(specScenario(4000, 1e-3)));
  writeFileSync(tiny, JSON.stringify(TINY));
});

afterEach(() => vi.restoreAllMocks());

describe('batchwise simulate', () => {
  it('prints JSON for a Triton policy, same seed same output', async () => {
    const a = await run('simulate', spec, '--policy', 'triton:delay=1ms', '--requests', '20000', '--seed', '3', '--json');
    expect(a.code).toBe(0);
    const r = JSON.parse(a.out) as SimulationResult;
    expect(r.policy).toBe('triton:max_queue_delay_microseconds=1000,max_batch_size=32');
    expect(r.requests).toBeGreaterThanOrEqual(20_000);
    expect(r.seed).toBe(3);
    const b = await run('simulate', spec, '--policy', 'triton:delay=1ms', '--requests', '20000', '--seed', '3', '--json');
    expect(b.out).toBe(a.out);
  });

  it('solves for optimal and prints a readable summary', async () => {
    const { code, out } = await run('simulate', spec, '--requests', '20000');
    expect(code).toBe(0);
    expect(out).toMatch(/^Policy: optimal/);
    expect(out).toMatch(/mean response time +\d+\.\d+ ms ± \d/);
    expect(out).toMatch(/p99 \d+\.\d+ ms/);
  });

  it('replays a trace file (CSV with a named column)', async () => {
    const file = join(dir, 'trace.csv');
    writeFileSync(file, `id,arrival\n${Array.from(TINY_TRACE, (t, i) => `${i},${t}`).join('\n')}\n`);
    const { code, out } = await run('simulate', tiny, '--policy', 'greedy', '--trace', file, '--trace-column', 'arrival', '--warmup', '0', '--json');
    expect(code).toBe(0);
    const r = JSON.parse(out) as SimulationResult;
    expect(r.arrivals).toBe('trace');
    expect(r.meanResponseTime).toBeCloseTo(18.3 / 6, 12);
  });

  it('reports bad input on one line with exit code 2', async () => {
    const bad = await run('simulate', spec, '--policy', 'triton:delay=2');
    expect(bad.code).toBe(2);
    expect(bad.err).toBe('batchwise: error: --policy.delay: needs a unit: s, ms, us or ns (got "2")\n');
    const missing = await run('simulate', spec, '--policy', 'greedy', '--trace', join(dir, 'nope.txt'));
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/nope\.txt: cannot be read \(ENOENT\)/);
  });
});

describe('batchwise compare', () => {
  it('tabulates optimal, greedy, the best static b and the best Triton delay', async () => {
    const { code, out } = await run('compare', spec, '--requests', '30000', '--tuning-requests', '10000', '--delays', '0,1ms,3ms', '--json');
    expect(code).toBe(0);
    const c = JSON.parse(out) as Comparison;
    expect(c.rows.map((r) => r.label)).toEqual(['optimal', 'greedy', 'best static', 'best triton']);
    expect(c.delayTrials.map((t) => t.maxQueueDelay)).toEqual([0, 0.001, 0.003]);
    // The optimal row's exact cost is the docs/model.md §6 value.
    expect(c.rows[0].exactCost as number).toBeCloseTo(0.142151425903, 10);
    const text = await run('compare', spec, '--requests', '30000', '--tuning-requests', '10000', '--delays', '0,1ms');
    expect(text.out).toMatch(/optimal \(serve from 11\)/);
    expect(text.out).toMatch(/triton delay (0|1ms)/);
    expect(text.out).toMatch(/greedy .* \+\d+\.\d+ % ± \d+\.\d+ %/);
  });
});

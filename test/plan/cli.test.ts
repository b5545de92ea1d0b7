import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PlanResult } from '../../src/plan/constrained.js';
import { specScenario } from '../helpers/scenarios.js';
import { parseXml } from './xmlCheck.js';
import { runCli as run } from '../helpers/cli.js';

let dir: string;
let light: string;
let heavy: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'batchwise-plan-'));
  light = join(dir, 'light.json');
  heavy = join(dir, 'heavy.json');
  writeFileSync(light, JSON.stringify(specScenario(1500, 1e-4)));
  writeFileSync(heavy, JSON.stringify(specScenario(4000, 1e-3)));
});

afterEach(() => vi.restoreAllMocks());

describe('batchwise plan', () => {
  it('prints the mix and the deterministic policy; --json has the same numbers', async () => {
    const text = await run('plan', light, '--latency-target', '5ms');
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/^Latency target 5\.0000 ms: least mean power 77\.\d{4} W/);
    expect(text.out).toMatch(/differ only where the queue length is \d+: there, serve \d+ with probability 0\.\d+, else wait/);
    const json = await run('plan', light, '--latency-target', '5ms', '--json');
    const r = JSON.parse(json.out) as PlanResult;
    expect(r.mix!.figures.meanResponseTime).toBeCloseTo(5e-3, 15);
    expect(text.out).toContain(`least mean power ${r.optimum.meanPower.toFixed(4)} W`);
  });

  it('input errors are one line and exit code 2', async () => {
    for (const [args, msg] of [
      [['--latency-target', '5'], /--latency-target: must be a duration with a unit/],
      [['--latency-target', '5ms', '--power-budget', '80W'], /give exactly one of --latency-target/],
      [['--power-budget', '120W'], /--power-budget: 120\.0000 W cannot be met: the least mean power of any stable policy is 133\.3335 W/],
      [['--latency-target', '6ms'], /--latency-target: 6\.0000 ms cannot be met: the least achievable mean response time is 6\.9448 ms/],
    ] as const) {
      const r = await run('plan', heavy, ...args);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(msg);
      expect(r.err.trim().split('\n')).toHaveLength(1);
    }
  });
});

describe('batchwise frontier / solve --svg', () => {
  it('prints the frontier table and writes a well-formed chart with its points', async () => {
    const svg = join(dir, 'frontier.svg');
    const r = await run('frontier', light, '--svg', svg);
    expect(r.code).toBe(0);
    const rows = r.out.split('\n').filter((l) => /^\s+\d+\s+\d+\.\d{4} ms/.test(l));
    expect(rows.length).toBeGreaterThanOrEqual(10);
    expect(r.out).toMatch(/the frontier is complete/);
    const circles = parseXml(readFileSync(svg, 'utf8')).filter((e) => e.attrs.class === 'vertex');
    expect(circles).toHaveLength(rows.length);
    rows.forEach((row, i) => {
      const ms = Number(/(\d+\.\d{4}) ms/.exec(row)![1]);
      expect(Number(circles[i].attrs['data-latency-ms'])).toBeCloseTo(ms, 4);
    });
  });

  it('solve --svg draws the policy', async () => {
    const svg = join(dir, 'policy.svg');
    const r = await run('solve', heavy, '--svg', svg);
    expect(r.code).toBe(0);
    const els = parseXml(readFileSync(svg, 'utf8'));
    expect(els.find((e) => e.attrs.class === 'control-limit')!.attrs['data-queue']).toBe('11');
  });
});

describe('batchwise fleet / export', () => {
  it('fleet names the least count and the power at n and n + 1', async () => {
    const r = await run('fleet', heavy, '--total-rate', '20000', '--latency-target', '6ms');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^6 accelerators meet a mean response time of 6\.0000 ms/);
    expect(r.out).toMatch(/5 would not: least achievable mean response time 6\.9448 ms/);
    expect(r.out).toMatch(/With 7 \(2857\.14 \/s each\): fleet power/);
    const bad = await run('fleet', heavy, '--total-rate', 'lots', '--latency-target', '6ms');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--total-rate: must be a positive rate/);
  });

  it('export prints only the configuration on stdout and the report on stderr', async () => {
    const r = await run('export', heavy, '--to', 'tf-serving', '--requests', '50000', '--tuning-requests', '20000');
    expect(r.code).toBe(0);
    expect(r.out.split('\n').filter((l) => l && !l.startsWith('#')).every((l) => /^\w+ \{ value: \d+ \}$/.test(l))).toBe(true);
    expect(r.err).toMatch(/gap to the optimum: -?\d+\.\d{3} % ± \d+\.\d{3} %/);
    const bad = await run('export', heavy, '--to', 'kserve');
    // Commander refuses the choice itself (its exit code is main.ts's business, not this command's).
    expect(bad.code).not.toBe(0);
    expect(bad.err).toMatch(/Allowed choices are triton, tf-serving, ray-serve, torchserve/);
  });
});

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FleetSimulation } from '../../src/fleet/result.js';
import type { SegregationPlan } from '../../src/fleet/segregation.js';
import { twoClassFleet } from './helpers.js';
import { runCli as run } from '../helpers/cli.js';

let dir: string;
let fleet: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'batchwise-fleet-'));
  fleet = join(dir, 'fleet.json');
  writeFileSync(fleet, JSON.stringify(twoClassFleet(2, 1)));
});

afterEach(() => vi.restoreAllMocks());

describe('batchwise fleet simulate / plan, train', () => {
  it('simulates under a router, with its own --requests and --seed', async () => {
    const a = await run('fleet', 'simulate', fleet, '--router', 'p2c', '--requests', '20000', '--seed', '2', '--json');
    expect(a.code).toBe(0);
    const r = JSON.parse(a.out) as FleetSimulation;
    expect(r.router).toBe('p2c');
    expect(r.seed).toBe(2);
    expect(r.requests).toBeGreaterThanOrEqual(20000);
    expect(r.requests).toBeLessThan(20100);
    const text = await run('fleet', 'simulate', fleet, '--router', 'segregation', '--requests', '20000');
    expect(text.out).toMatch(/Segregation \(exact\)/);
    expect(text.out).toMatch(/vision .* 0\.000 ms/);
  });

  it('plans segregation and sizes for the targets', async () => {
    const p = JSON.parse((await run('fleet', 'plan', fleet, '--json')).out) as SegregationPlan;
    expect(p.counts).toEqual([[1, 1]]);
    const least = await run('fleet', 'plan', fleet, '--least');
    expect(least.code).toBe(0);
    expect(least.out).toMatch(/^2 × gpu meet every class target/);
  });

  it('trains a router, writes it and the learning curve, and simulates it', async () => {
    const out = join(dir, 'router.json');
    const svg = join(dir, 'curve.svg');
    const t = await run('train', fleet, '--algo', 'reinforce', '--episodes', '3', '--requests', '3000', '--out', out, '--svg', svg);
    expect(t.code).toBe(0);
    expect(readFileSync(svg, 'utf8')).toMatch(/^<svg|<\?xml/);
    const s = await run('fleet', 'simulate', fleet, '--router', 'learned', '--weights', out, '--requests', '10000');
    expect(s.code).toBe(0);
    expect(s.out).toMatch(/Router learned/);
  });

  it('bad input: one line and exit code 2; the sizing command still wants its options', async () => {
    const bad = await run('fleet', 'simulate', fleet, '--router', 'fastest');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/router: unknown router "fastest"/);
    // A bursty class 0: the batching learner (Poisson control limits) refuses it, naming the field.
    const bursty = join(dir, 'bursty.json');
    const b = twoClassFleet(2, 1);
    writeFileSync(bursty, JSON.stringify({ ...b, classes: [{ name: 'vision', arrivalProcess: { mmpp: { rates: [1000, 3000], generator: [[-5, 5], [10, -10]] } } }, b.classes[1]] }));
    const learn = await run('train', bursty, '--task', 'batching', '--out', join(dir, 'limit.json'));
    expect(learn.code).toBe(2);
    expect(learn.err).toMatch(/classes\[0\]\.arrivalProcess: train --task batching learns one control limit for Poisson arrivals only/);
    const sizing = await run('fleet', fleet, '--latency-target', '10ms');
    expect(sizing.code).toBe(2);
    expect(sizing.err).toMatch(/--total-rate/);
  });
});

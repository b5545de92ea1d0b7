import { afterEach, describe, expect, it, vi } from 'vitest';
import { statusLine } from '../../src/cli/progress.js';
import { planScenario } from '../../src/plan/constrained.js';
import { specScenario } from '../helpers/scenarios.js';
import { runCli } from '../helpers/cli.js';

describe('status lines of long commands', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('on a terminal: redrawn at least every second with the step and the clock, cleared at the end', () => {
    vi.useFakeTimers();
    const writes: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => (writes.push(String(s)), true));
    const line = statusLine(true, 'plan');
    line.set('solve 1, least latency');
    vi.advanceTimersByTime(3_000);
    const drawn = writes.filter((w) => w.includes('solve 1, least latency'));
    expect(drawn.length).toBeGreaterThanOrEqual(1 + 3); // the set, then ≥ 1 per second
    expect(drawn[drawn.length - 1]).toMatch(/\rplan: solve 1, least latency \(3 s\)/);
    line.stop();
    expect(writes[writes.length - 1]).toMatch(/^\r +\r$/);
    const before = writes.length;
    vi.advanceTimersByTime(3_000);
    expect(writes.length).toBe(before);
  });

  it('off (a pipe): writes nothing', () => {
    vi.useFakeTimers();
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const line = statusLine(false, 'plan');
    line.set('x');
    vi.advanceTimersByTime(5_000);
    line.stop();
    expect(spy).not.toHaveBeenCalled();
  });

  it('a plan reports every solve it makes, and the CLI on a pipe prints no status', async () => {
    const steps: string[] = [];
    const r = await planScenario(specScenario(1500, 1e-4), { kind: 'latency', seconds: 5e-3 }, { onProgress: (s) => steps.push(s) });
    expect(steps.length).toBe(r.solves);
    expect(steps[0]).toBe('solve 1, least latency');
    expect(steps[1]).toMatch(/^solve 2, weight \d/);
    const cli = await runCli('plan', 'examples/scenario.json', '--latency-target', '10ms');
    expect(cli.code).toBe(0);
    expect(cli.err).toBe('');
  });
});

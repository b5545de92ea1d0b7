import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateScenarioPolicy } from '../../src/solve/evaluateScenario.js';
import { solveClassesScenario } from '../../src/solve/classes/solveClasses.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { specScenario } from '../helpers/scenarios.js';

const CLI = ['--import', 'tsx', 'src/cli/bin.ts'];

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [...CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `batchwise serve` as a child process; resolves with its address once it logs that it serves. */
function serve(env: Record<string, string>): Promise<{ proc: ChildProcess; address: string; logs: Array<Record<string, unknown>> }> {
  const proc = spawn(process.execPath, [...CLI, 'serve'], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  const logs: Array<Record<string, unknown>> = [];
  return new Promise((resolve, reject) => {
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>;
      logs.push(entry);
      if (entry.msg === 'batchwise serving') resolve({ proc, address: String(entry.address), logs });
    });
    proc.on('exit', (code) => reject(new Error(`serve exited early with ${code}`)));
  });
}

const withoutSeconds = (json: string) => {
  const r = JSON.parse(json) as { solver: { seconds: number } };
  r.solver.seconds = 0;
  return r;
};

describe('CLI as a client: serve, solve/evaluate --server, sweep', () => {
  let server: Awaited<ReturnType<typeof serve>>;
  const dir = mkdtempSync(join(tmpdir(), 'batchwise-cli-'));
  beforeAll(async () => {
    // Configured through the environment only: a free port, one worker.
    server = await serve({ BATCHWISE_PORT: '0', BATCHWISE_WORKERS: '1', BATCHWISE_LOG_LEVEL: 'info' });
  });
  afterAll(() => {
    if (server && server.proc.exitCode === null) server.proc.kill('SIGKILL');
  });

  it('serve reads its settings from the environment', () => {
    const started = server.logs.find((l) => l.msg === 'batchwise serving')!;
    expect(server.address).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(server.address).not.toBe('127.0.0.1:50051');
    expect((started.limits as { maxConcurrentSolves: number }).maxConcurrentSolves).toBe(1);
  });

  it('solve --server prints the same result object as a local solve', async () => {
    const [remote, local] = await Promise.all([
      run(['solve', 'examples/scenario.json', '--json', '--server', server.address]),
      run(['solve', 'examples/scenario.json', '--json']),
    ]);
    expect(remote.code).toBe(0);
    expect(local.code).toBe(0);
    expect(withoutSeconds(remote.stdout)).toEqual(withoutSeconds(local.stdout));
  });

  it('solve --server of a classes scenario prints the same result as a local solve, and --svg draws its switching curve', async () => {
    const svg = join(dir, 'two-classes.svg');
    const [remote, local] = await Promise.all([
      run(['solve', 'examples/two-classes.json', '--json', '--server', server.address, '--svg', svg]),
      run(['solve', 'examples/two-classes.json', '--json']),
    ]);
    expect(remote.code, remote.stderr).toBe(0);
    expect(local.code, local.stderr).toBe(0);
    expect(withoutSeconds(remote.stdout)).toEqual(withoutSeconds(local.stdout));
    const drawn = readFileSync(svg, 'utf8');
    expect(drawn).toMatch(/<title>Switching curve: small against large<\/title>/);
    expect(drawn).toContain('class="switching-curve"');
  }, 120_000);

  it('evaluate --server matches the in-process evaluation; bad input exits 2 naming the field', async () => {
    const remote = await run(['evaluate', 'examples/scenario.json', '--policy', 'control-limit:7', '--json', '--server', server.address]);
    const scenario = JSON.parse(readFileSync('examples/scenario.json', 'utf8')) as unknown;
    expect(JSON.parse(remote.stdout)).toEqual(JSON.parse(JSON.stringify(evaluateScenarioPolicy(scenario, 'control-limit:7'))));
    const bad = await run(['evaluate', 'examples/scenario.json', '--policy', 'static:99', '--server', server.address]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/policy\.spec/);
  });

  it('sweep --server --format csv: one row per scenario in index order, errors in place', async () => {
    const grid = join(dir, 'grid.json');
    writeFileSync(grid, JSON.stringify({ grid: { base: specScenario(1000, 1e-4), arrivalRate: [800, 1600, 9000], powerWeight: [1e-4, 1e-3] } }));
    const out = await run(['sweep', grid, '--server', server.address, '--format', 'csv']);
    expect(out.code).toBe(0);
    const [header, ...rows] = out.stdout.trim().split('\n');
    const cols = header.split(',');
    const at = (row: string, c: string) => row.split(',')[cols.indexOf(c)];
    expect(rows).toHaveLength(6);
    expect(rows.map((r) => Number(at(r, 'index')))).toEqual([0, 1, 2, 3, 4, 5]);
    for (const r of rows.slice(0, 4)) {
      const ref = await solveScenario(specScenario(Number(at(r, 'arrivalRate')), Number(at(r, 'powerWeight'))));
      expect(Number(at(r, 'averageCost'))).toBeCloseTo(ref.averageCost, 12);
      expect(Number(at(r, 'controlLimit'))).toBe(ref.policy.controlLimit);
    }
    for (const r of rows.slice(4)) expect(r).toMatch(/INVALID_ARGUMENT: arrivalRate: 9000/);
    expect(out.stderr).toMatch(/4 solved .*2 errors/);
  });

  it('sweep --server of a list with a classes scenario: its row has the cost of the classes solve and per-class figures', async () => {
    const classes = JSON.parse(readFileSync('examples/two-classes.json', 'utf8')) as unknown;
    const list = join(dir, 'mixed.json');
    writeFileSync(list, JSON.stringify({ list: { scenarios: [classes, specScenario(1000, 1e-4)] } }));
    const [out, local, single] = await Promise.all([
      run(['sweep', list, '--server', server.address, '--format', 'csv']),
      solveClassesScenario(classes),
      solveScenario(specScenario(1000, 1e-4)),
    ]);
    expect(out.code, out.stderr).toBe(0);
    const [header, ...rows] = out.stdout.trim().split('\n');
    const cols = header.split(',');
    const at = (row: string, c: string) => row.split(',')[cols.indexOf(c)];
    expect(rows.map((r) => at(r, 'index'))).toEqual(['0', '1']);
    // CSV writes the full double: the remote solve equals the in-process one exactly.
    expect(Number(at(rows[0], 'averageCost'))).toBe(local.averageCost);
    expect(Number(at(rows[0], 'meanPowerW'))).toBe(local.meanPower);
    expect(at(rows[0], 'controlLimit')).toBe(local.policy.controlLimits.map((v) => v ?? '-').join('/'));
    expect(at(rows[0], 'meanResponseTimeMs')).toBe(local.classes.map((c) => String(c.meanResponseTime * 1e3)).join('/'));
    expect(at(rows[0], 'maxQueue')).toBe(local.policy.maxQueue.join('/'));
    expect(at(rows[0], 'p99_ms')).toBe('');
    expect(Number(at(rows[1], 'averageCost'))).toBeCloseTo(single.averageCost, 12);
    expect(out.stderr).toMatch(/2 solved .*0 errors/);
  }, 120_000);

  it('sweep refuses a misspelt grid key instead of sweeping nothing', async () => {
    const grid = join(dir, 'typo.json');
    writeFileSync(grid, JSON.stringify({ grid: { base: specScenario(1000, 1e-4), arrivalRates: [800, 1600] } }));
    const out = await run(['sweep', grid, '--server', server.address]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('grid.arrivalRates: is not a known field (expected base, arrivalRate, maxBatchSize, latencyWeight, powerWeight)');
  });

  it('SIGTERM shuts the server down gracefully and it exits 0', async () => {
    const exited = new Promise<number | null>((r) => server.proc.on('exit', (code) => r(code)));
    server.proc.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(server.logs.some((l) => l.msg === 'batchwise stopped')).toBe(true);
    const rpcs = server.logs.filter((l) => typeof l.rpc === 'string').map((l) => `${l.rpc} ${l.code}`);
    expect(rpcs).toEqual(expect.arrayContaining(['Solve OK', 'Evaluate OK', 'Evaluate INVALID_ARGUMENT', 'SolveBatch OK']));
  });
});

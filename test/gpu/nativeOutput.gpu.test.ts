import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchwiseClient } from '../../src/service/client.js';
import { releaseGpu } from '../../src/solve/gpu/device.js';
import { gpuForTests } from './gpuEnv.js';

/**
 * What Dawn, Mesa and the Vulkan loader print never reaches the CLI's stdout or stderr, nor the
 * server's JSON log stream (docs/gpu.md, "Native output"): the real CLI in child processes,
 * with a real GPU solve. The unsupervised run (BATCHWISE_NATIVE_OUTPUT=inherit) is the
 * reference for what the native side prints on this machine.
 */

const gpu = await gpuForTests();
const CLI = ['--import', 'tsx', 'src/cli/bin.ts'];
const GPU_ENV = { EGL_PLATFORM: 'surfaceless', BATCHWISE_GPU: 'required' };
const SOLVE = ['solve', 'examples/scenario.json', '--backend', 'gpu'];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [...CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...GPU_ENV, ...env } });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const nonBlank = (text: string): string[] => text.split('\n').filter((l) => l.trim());

describe(`native GPU output stays out of the program's output${gpu.skip}`, () => {
  /** Native lines of an unsupervised `solve --json --backend gpu`: its stderr, and stdout lines outside the result. */
  let reference: string[] = [];
  beforeAll(async () => {
    if (!gpu.ctx) return;
    await releaseGpu(); // only the children use the GPU from here on
    const r = await run([...SOLVE, '--json'], { BATCHWISE_NATIVE_OUTPUT: 'inherit' });
    expect(r.code).toBe(0);
    const start = r.stdout.indexOf('{\n');
    const end = r.stdout.lastIndexOf('\n}');
    expect(JSON.parse(r.stdout.slice(start, end + 2)).solver.backend).toBe('webgpu');
    reference = [...nonBlank(r.stderr), ...nonBlank(r.stdout.slice(0, start)), ...nonBlank(r.stdout.slice(end + 2))];
    // llvmpipe through OpenGL ES always prints some (Dawn's limit warnings), so there is something to keep out.
    if (gpu.ctx.featureLevel === 'compatibility') expect(reference.length).toBeGreaterThan(0);
  });

  it.skipIf(!gpu.ctx)('solve --backend gpu: stdout is the result alone, stderr is empty', async () => {
    const json = await run([...SOLVE, '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).solver.backend).toBe('webgpu'); // the whole of stdout is the one JSON object
    expect(json.stderr).toBe('');
    const text = await run(SOLVE);
    expect(text.code).toBe(0);
    expect(text.stderr).toBe('');
    expect(nonBlank(text.stdout)[0]).toBe('Optimal policy:');
    expect(text.stdout).toMatch(/\nSolver: webgpu \(/);
    for (const l of reference) expect(text.stdout).not.toContain(l);
  });

  it.skipIf(!gpu.ctx)('a solve whose scenario asks for the GPU (no flag) is handed to a supervised run when it loads the GPU', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'batchwise-native-'));
    const file = join(dir, 'gpu.json');
    const scenario = JSON.parse(readFileSync('examples/scenario.json', 'utf8')) as { solver: Record<string, unknown> };
    writeFileSync(file, JSON.stringify({ ...scenario, solver: { ...scenario.solver, backend: 'GPU' } }));
    const r = await run(['solve', file, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).solver.backend).toBe('webgpu');
    expect(r.stderr).toBe('');
    // The same run without the hand-over shows the native lines it keeps out.
    const bare = await run(['solve', file, '--json'], { BATCHWISE_NATIVE_OUTPUT: 'inherit' });
    expect(bare.code).toBe(0);
    if (gpu.ctx!.featureLevel === 'compatibility') expect(bare.stderr.trim().length).toBeGreaterThan(0);
  });

  it.skipIf(!gpu.ctx)('solve --verbose: the native lines are shown on stderr, stdout is still the result alone', async () => {
    const r = await run([...SOLVE, '--json', '--verbose']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).solver.backend).toBe('webgpu');
    for (const l of reference) expect(r.stderr).toContain(l);
  });

  it.skipIf(!gpu.ctx)('serve + a GPU solve: every stdout line is JSON; native lines are warn records with field native', async () => {
    const proc = spawn(process.execPath, [...CLI, 'serve'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...GPU_ENV, BATCHWISE_PORT: '0', BATCHWISE_WORKERS: '1', BATCHWISE_LOG_LEVEL: 'info' },
    });
    const lines: string[] = [];
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((r) => proc.on('close', (code) => r(code)));
    const address = await new Promise<string>((resolve, reject) => {
      createInterface({ input: proc.stdout }).on('line', (line) => {
        lines.push(line);
        if (line.includes('"batchwise serving"')) resolve(String((JSON.parse(line) as { address: string }).address));
      });
      void exited.then((code) => reject(new Error(`serve exited early with ${code}: ${stderr}`)));
    });
    const client = new BatchwiseClient(address);
    try {
      const scenario = { ...(JSON.parse(readFileSync('examples/scenario.json', 'utf8')) as object), solver: { backend: 'GPU' } };
      const { result } = await client.solve(scenario);
      expect(result.solver.backend).toBe('webgpu');
    } finally {
      client.close();
      proc.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>); // throws on any non-JSON line
    expect(records.some((r) => r.msg === 'batchwise stopped')).toBe(true);
    const native = records.filter((r) => 'native' in r);
    for (const r of native) expect(r).toMatchObject({ level: 40, name: 'batchwise', msg: 'native output' });
    const nativeText = native.map((r) => r.native);
    for (const l of reference) expect(nativeText).toContain(l);
    for (const l of reference) expect(stderr).not.toContain(l);
  });
});

afterAll(async () => {
  await releaseGpu();
});

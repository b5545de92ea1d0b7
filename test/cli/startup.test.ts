import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main.js';

/**
 * Start-up stays cheap by construction (issue 15): registering the commands, which is all that
 * `--help`, `<cmd> --help` and completion need, loads no implementation; each command loads its
 * own (commands/<cmd>.run.ts) when it runs. Checked on the modules a fresh process loads, never
 * on timings. The CLI runs from src through tsx, as the other CLI tests do, so no build is needed.
 */

const ROOT = join(import.meta.dirname, '..', '..');
const SRC = join(ROOT, 'src');
const REGISTER = join(ROOT, 'test', 'fixtures', 'startup', 'register.mjs');
const dir = mkdtempSync(join(tmpdir(), 'batchwise-startup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What start-up loads besides the registration modules (commands/<cmd>.ts): nothing that computes. */
const REGISTRATION = new Set([
  'cli/bin.ts',
  'cli/main.ts',
  'cli/nativePlan.ts',
  'cli/completion.ts',
  'cli/version.ts',
  'cli/remote.ts',
  'native/stdio.ts',
  'model/errors.ts',
  // Choice lists that the help prints, apart from the code that uses them (they import nothing).
  'plan/export/targetNames.ts',
  'fleet/routerNames.ts',
  // Options that evaluate and simulate share (registration only).
  'cli/commands/configOptions.ts',
]);
const isRegistration = (m: string): boolean => REGISTRATION.has(m) || /^cli\/commands\/[a-z]+\.ts$/.test(m);

let runs = 0;
/** The URLs (in load order) of the modules that `node ARGS` loads, with tsx and the load hook, and its exit code. */
function load(args: string[]): { code: number | null; urls: string[] } {
  const log = join(dir, `load-${runs++}.log`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--import', REGISTER, ...args], {
    cwd: ROOT,
    env: { ...process.env, BATCHWISE_LOAD_LOG: log, BATCHWISE_GPU: 'off' },
    encoding: 'utf8',
  });
  const urls = readFileSync(log, 'utf8').split('\n').filter(Boolean).map((u) => u.replace(/\?.*$/, ''));
  return { code: r.status, urls: [...new Set(urls)] };
}

/** The src modules (relative to src/) that `batchwise ARGS` loads, and its exit code. */
function modulesLoaded(...args: string[]): { code: number | null; modules: string[] } {
  const { code, urls } = load([join(SRC, 'cli', 'bin.ts'), ...args]);
  const files = urls.filter((u) => u.startsWith('file:')).map((u) => relative(SRC, fileURLToPath(u)));
  return { code, modules: files.filter((p) => !p.startsWith('..')) };
}

describe('start-up loads only what the command needs', () => {
  it('--help: the registration modules and nothing else', () => {
    const { code, modules } = modulesLoaded('--help');
    expect(code).toBe(0);
    // The hook works (an empty log would pass everything below).
    expect(modules).toContain('cli/main.ts');
    expect(modules).toContain('cli/commands/solve.ts');
    expect(modules.filter((m) => !isRegistration(m))).toEqual([]);
  });

  it.each(['solve', 'fleet simulate', 'export'])('%s --help: the same', (cmd) => {
    const { code, modules } = modulesLoaded(...cmd.split(' '), '--help');
    expect(code).toBe(0);
    expect(modules.filter((m) => !isRegistration(m))).toEqual([]);
  });

  it('every command is registered by its light module (one per command in src/cli/commands)', () => {
    const names = buildProgram().commands.map((c) => c.name()).filter((n) => n !== 'completion');
    const { modules } = modulesLoaded('--help');
    for (const n of names) expect(modules, n).toContain(`cli/commands/${n}.ts`);
  });

  it('a local solve loads the solver, and no simulator, fleet, planner or service module', () => {
    const { code, modules } = modulesLoaded('solve', join(ROOT, 'examples', 'scenario.json'), '--json');
    expect(code).toBe(0);
    expect(modules).toContain('cli/commands/solve.run.ts');
    expect(modules).toContain('solve/solveScenario.ts');
    const heavy = modules.filter((m) => /^(sim|fleet|plan|service)\//.test(m) && !REGISTRATION.has(m));
    expect(heavy).toEqual([]);
    expect(modules.filter((m) => m.endsWith('.run.ts'))).toEqual(['cli/commands/solve.run.ts']);
  });

  it('the choice lists allowed at start-up import nothing', () => {
    for (const m of ['plan/export/targetNames.ts', 'fleet/routerNames.ts']) {
      expect(readFileSync(join(SRC, m), 'utf8'), m).not.toMatch(/^\s*(import|export .* from)\b/m);
    }
  });

  it("import('batchwise') loads no CLI or service module, and neither gRPC, pino, prom-client nor yaml", () => {
    const index = pathToFileURL(join(SRC, 'index.ts')).href;
    const { code, urls } = load(['--input-type=module', '-e', `await import(${JSON.stringify(index)})`]);
    expect(code).toBe(0);
    const modules = urls.filter((u) => u.startsWith(pathToFileURL(SRC).href)).map((u) => relative(SRC, fileURLToPath(u)));
    expect(modules).toContain('solve/solveScenario.ts');
    expect(modules.filter((m) => /^(cli|service|native)\//.test(m))).toEqual([]);
    const packages = urls.flatMap((u) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u)?.[1] ?? []);
    expect(packages.filter((p) => /^(@grpc\/.*|grpc-health-check|pino|prom-client|yaml|webgpu)$/.test(p))).toEqual([]);
  });
});

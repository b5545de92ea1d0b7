import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import semver from 'semver';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The Node versions the project declares are ones every package it installs accepts: the
 * lockfile records each package's own `engines.node`, and the project's range must be a subset
 * of each (dev dependencies included: they run the tests). And the machine running the tests is
 * inside the range.
 */
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string }; files: string[] };
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[]; dev?: boolean; optional?: boolean }>;
};

describe('Node versions', () => {
  const ours = pkg.engines.node;

  it('the declared range is valid and holds the Node running these tests', () => {
    expect(semver.validRange(ours)).not.toBeNull();
    expect(semver.satisfies(process.version, ours), `${process.version} vs ${ours}`).toBe(true);
  });

  it('every installed package accepts every Node version the project declares', () => {
    const conflicts: string[] = [];
    let checked = 0;
    for (const [path, entry] of Object.entries(lock.packages)) {
      if (path === '' || !entry.engines || Array.isArray(entry.engines) || !entry.engines.node) continue;
      // Platform binaries for other machines are never installed here.
      if (entry.optional && !path.includes('linux-x64-gnu')) continue;
      checked++;
      if (!semver.subset(ours, entry.engines.node)) conflicts.push(`${path.replace(/^node_modules\//, '')}@${entry.version}: ${entry.engines.node}`);
    }
    expect(checked).toBeGreaterThan(20);
    expect(conflicts).toEqual([]);
  });
});

describe('the packed tarball', () => {
  const dir = mkdtempSync(join(tmpdir(), 'batchwise-pack-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('ships the licence, the README and the docs it links to, and no benchmarks or tests', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { encoding: 'utf8' });
    const files = (JSON.parse(out) as Array<{ files: Array<{ path: string }> }>)[0].files.map((f) => f.path);
    for (const f of ['LICENSE', 'README.md', 'package.json', 'bin/batchwise.js', 'dist/src/index.js', 'proto/batchwise/v1/batchwise.proto']) expect(files).toContain(f);
    const readme = readFileSync('README.md', 'utf8');
    const linked = [...readme.matchAll(/\]\((docs\/[^)#\s]+)/g)].map((m) => m[1]);
    expect(linked.length).toBeGreaterThan(3);
    for (const l of linked) expect(files, l).toContain(l);
    expect(files.filter((f) => f.startsWith('dist/bench') || f.startsWith('dist/test') || f.startsWith('test/'))).toEqual([]);
  });

  it('installs with --engine-strict on this Node and runs: the CLI and both entry points', () => {
    const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { encoding: 'utf8' })) as Array<{ filename: string }>;
    const tarball = join(dir, packed[0].filename);
    const app = join(dir, 'app');
    execFileSync('mkdir', ['-p', app]);
    execFileSync('npm', ['init', '-y'], { cwd: app, encoding: 'utf8' });
    // From the npm cache the test run's own install filled (CI has the registry too).
    execFileSync('npm', ['install', '--engine-strict', '--prefer-offline', '--no-audit', '--no-fund', tarball], { cwd: app, encoding: 'utf8' });
    const bin = join(app, 'node_modules/.bin/batchwise');
    expect(execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim()).toBe((JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version);
    const probe = "const core = await import('batchwise'); const svc = await import('batchwise/service'); console.log(typeof core.solveScenario, typeof svc.BatchwiseServer)";
    expect(execFileSync(process.execPath, ['--input-type=module', '-e', probe], { cwd: app, encoding: 'utf8' }).trim()).toBe('function function');
  });
});

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main.js';
import { runCli } from '../helpers/cli.js';

describe('the CLI program', () => {
  it('--version prints the package version', async () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    const r = await runCli('--version');
    expect(r.code).toBe(0);
    expect(r.out.trim()).toBe(pkg.version);
  });

  it('the top-level help ends with examples that name real commands', async () => {
    const r = await runCli('--help');
    expect(r.code).toBe(0);
    const examples = r.out.slice(r.out.indexOf('Examples:'));
    const names = new Set(buildProgram().commands.map((c) => c.name()));
    const used = [...examples.matchAll(/^ {2}batchwise (\S+)/gm)].map((m) => m[1]);
    expect(used.length).toBeGreaterThanOrEqual(4);
    for (const u of used) expect(names, u).toContain(u);
  });

  it('bash completion, run by bash itself, completes subcommands, their flags and nested subcommands', async () => {
    const r = await runCli('completion', 'bash');
    expect(r.code).toBe(0);
    const dir = mkdtempSync(join(tmpdir(), 'batchwise-completion-'));
    const script = join(dir, 'c.sh');
    writeFileSync(script, r.out);
    const complete = (...words: string[]): string[] =>
      execFileSync('bash', ['-c', `source ${script}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _batchwise; printf '%s\\n' "\${COMPREPLY[@]}"`], {
        encoding: 'utf8',
      })
        .split('\n')
        .filter(Boolean);
    expect(complete('batchwise', 'so')).toEqual(['solve']);
    expect(complete('batchwise', 'solve', '--back')).toEqual(['--backend']);
    expect(complete('batchwise', 'fleet', 'sim')).toEqual(['simulate']);
    expect(complete('batchwise', 'plan', '--latency')).toEqual(['--latency-target']);
    // Every subcommand is offered at the top.
    const top = complete('batchwise', '');
    for (const c of buildProgram().commands) expect(top).toContain(c.name());
  });

  it('zsh completion loads bash compatibility first; other shells are refused as bad input', async () => {
    const z = await runCli('completion', 'zsh');
    expect(z.out.split('\n')[0]).toBe('autoload -U +X bashcompinit && bashcompinit');
    expect(z.out).toContain('complete -o filenames -F _batchwise batchwise');
    const fish = await runCli('completion', 'fish');
    expect(fish.code).toBe(2);
    expect(fish.err).toContain('expected bash or zsh');
  });

  it('bash accepts the script as valid syntax', async () => {
    const r = await runCli('completion', 'bash');
    const check = spawnSync('bash', ['-n'], { input: r.out, encoding: 'utf8' });
    expect(check.status, check.stderr).toBe(0);
  });
});

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nativePlan } from '../../src/cli/nativePlan.js';
import { LineSplitter, MAX_LINE_CHARS, NativeCapture, clip } from '../../src/native/capture.js';

/** The supervisor (src/native/) with a fake program whose "native" output is deterministic; no GPU needed. */

const FAKE = ['--import', 'tsx', 'test/fixtures/native/fakeCli.ts'];
const NATIVE = ['warning:', 'native on fd 1', 'native on fd 2', 'without newline'];

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function fake(mode: string, behaviour: string, onStdout?: (text: string, kill: (sig: NodeJS.Signals) => void) => void): Promise<Run> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [...FAKE, mode, behaviour], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      onStdout?.(stdout, (sig) => p.kill(sig));
    });
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Running (a zombie waiting for whoever adopted it counts as gone). */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true; // no /proc: kill(0) is all there is
  }
};

describe('native output supervisor', () => {
  const hint = `batchwise: ${NATIVE.length} line(s) of native GPU driver output hidden; --verbose (or BATCHWISE_NATIVE_OUTPUT=show) shows them\n`;
  it.each([
    ['success: stdout and stderr hold only the program\'s own output', 'exit0', 0, ''],
    ['input error (exit 2): plus one line saying how many native lines were hidden', 'exit2', 2, hint],
  ])('hidden, %s', async (_what, behaviour, code, extra) => {
    const r = await fake('hidden', behaviour);
    expect(r.code).toBe(code);
    expect(r.stdout).toBe('result line\n');
    expect(r.stderr).toBe(`own stderr line\n${extra}`);
  });

  it('hidden, other failures: the kept lines are reported (an uncaught exception included)', async () => {
    const r = await fake('hidden', 'exit3');
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('batchwise: the run failed (exit code 3)');
    for (const l of NATIVE) expect(r.stderr).toContain(l);
    const t = await fake('hidden', 'throw');
    expect(t.code).toBe(1);
    expect(t.stdout).toBe('result line\n');
    expect(t.stderr).toContain('uncaught in the child');
  });

  it('raw (--verbose): native lines go to stderr, never to stdout', async () => {
    const r = await fake('raw', 'exit0');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('result line\n');
    expect(r.stderr).toContain('own stderr line\n');
    for (const l of NATIVE) expect(r.stderr).toContain(l);
    expect(r.stderr.endsWith('\n')).toBe(true);
  });

  it('records: stdout is JSON lines only; each native line is a warn record with field native', async () => {
    const r = await fake('records', 'exit0');
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.filter((l) => l.msg === 'own record')).toHaveLength(1);
    const records = lines.filter((l) => 'native' in l);
    expect(records.map((l) => l.native)).toEqual(expect.arrayContaining(NATIVE));
    expect(records).toHaveLength(NATIVE.length);
    for (const l of records) expect(l).toMatchObject({ level: 40, name: 'fake', msg: 'native output' });
    expect(records.find((l) => l.native === 'native on fd 1')!.stream).toBe('stdout');
    expect(records.find((l) => l.native === 'native on fd 2')!.stream).toBe('stderr');
    expect(r.stderr).toBe('own stderr line\n');
  });

  it('a child killed by a signal: the supervisor dies of the same signal', async () => {
    const r = await fake('hidden', 'sigterm');
    expect(r.signal).toBe('SIGTERM');
  });

  it('SIGTERM to the supervisor reaches the child, which exits on its own terms', async () => {
    let sent = false;
    const r = await fake('hidden', 'wait', (out, kill) => {
      if (out.includes('child pid') && !sent) {
        sent = true;
        kill('SIGTERM');
      }
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('child got SIGTERM');
  });

  it('a supervisor killed outright (SIGKILL) takes its child down the same way, through the lifeline', async () => {
    let childPid = 0;
    const r = await fake('hidden', 'wait', (out, kill) => {
      const m = /child pid (\d+)/.exec(out);
      if (m && !childPid) {
        childPid = Number(m[1]);
        kill('SIGKILL');
      }
    });
    expect(childPid).toBeGreaterThan(0);
    for (let i = 0; i < 100 && alive(childPid); i++) await new Promise((r) => setTimeout(r, 50));
    expect(alive(childPid)).toBe(false);
    expect(r.stdout).not.toContain('child got SIGTERM'); // no graceful shutdown: killed, as the supervisor was
  });
});

describe('nativePlan: which command lines run supervised', () => {
  const env = {};
  const plan = (args: string[], e: NodeJS.ProcessEnv, platform: NodeJS.Platform) => nativePlan(args, e, platform, []);
  it('GPU-capable commands: hidden, --verbose raw, serve and worker records at their log level; supervised at once or on loading the GPU', () => {
    expect(plan(['solve', 'x.json', '--backend', 'gpu'], env, 'linux')).toEqual({ mode: 'hidden', when: 'now' });
    expect(plan(['solve', 'x.json'], env, 'linux')).toEqual({ mode: 'hidden', when: 'on-gpu' });
    expect(plan(['solve', 'x.json', '--verbose'], env, 'linux')).toEqual({ mode: 'raw', when: 'on-gpu' });
    expect(plan(['plan', 'x.json'], { BATCHWISE_NATIVE_OUTPUT: 'show' }, 'darwin')).toEqual({ mode: 'raw', when: 'on-gpu' });
    expect(plan(['sweep', 'grid.json'], env, 'linux')).toEqual({ mode: 'hidden', when: 'now' });
    expect(plan(['serve', '--port', '0'], env, 'linux')).toEqual({ mode: 'records', logName: 'batchwise', logLevel: 'info', when: 'now' });
    expect(plan(['serve', '--log-level=debug'], { BATCHWISE_LOG_LEVEL: 'warn' }, 'linux')).toMatchObject({ logLevel: 'debug' });
    expect(plan(['worker', '--redis', 'r'], { BATCHWISE_LOG_LEVEL: 'warn' }, 'linux')).toEqual({ mode: 'records', logName: 'batchwise-worker', logLevel: 'warn', when: 'now' });
  });
  it('in process: Windows, inherit, BATCHWISE_GPU=off, --inspect, help, version, completion, --backend cpu, --server', () => {
    expect(plan(['solve', 'x.json'], env, 'win32')).toBeUndefined();
    expect(plan(['solve', 'x.json'], { BATCHWISE_NATIVE_OUTPUT: 'inherit' }, 'linux')).toBeUndefined();
    expect(plan(['serve'], { BATCHWISE_GPU: 'off' }, 'linux')).toBeUndefined();
    expect(nativePlan(['solve', 'x.json'], env, 'linux', ['--inspect-brk'])).toBeUndefined();
    expect(nativePlan(['solve', 'x.json'], { NODE_OPTIONS: '--inspect=9230' }, 'linux', [])).toBeUndefined();
    for (const args of [[], ['--help'], ['solve', '-h'], ['-V'], ['completion', 'bash'], ['solve', 'x.json', '--backend', 'cpu'], ['solve', 'x.json', '--server', 'h:1']]) {
      expect(plan(args, env, 'linux'), args.join(' ')).toBeUndefined();
    }
  });
});

describe('capture pieces', () => {
  it('LineSplitter: LF and CRLF, a line split over chunks, the last line without LF at end()', () => {
    const s = new LineSplitter();
    expect(s.push('a\r\nb')).toEqual(['a']);
    expect(s.push('c\n\nd')).toEqual(['bc', '']);
    expect(s.end()).toEqual(['d']);
    expect(s.end()).toEqual([]);
  });
  it('long lines are clipped below a pipe\'s atomic write; blank lines are not counted', () => {
    expect(clip('x'.repeat(MAX_LINE_CHARS + 5))).toBe(`${'x'.repeat(MAX_LINE_CHARS)} […5 more characters]`);
    const c = new NativeCapture('hidden');
    c.chunk(Buffer.from('one\n\n  \ntwo'), 'stderr');
    c.end();
    expect(c.lines).toBe(2);
    expect(c.keptLines()).toEqual(['one', 'two']);
  });
});

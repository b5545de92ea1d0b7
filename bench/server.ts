/** A real `batchwise serve` child process for the benchmarks that measure a running server. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = here.endsWith(join('dist', 'bench')) ? join(here, '..', '..') : join(here, '..');

/** Starts `batchwise serve` on a free port (CPU only) and resolves once it logs its address. */
export function startServer(extraArgs: readonly string[] = []): Promise<{ proc: ChildProcess; address: string }> {
  const proc = spawn(process.execPath, [join(root, 'bin/batchwise.js'), 'serve', '--port', '0', ...extraArgs], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, BATCHWISE_GPU: 'off' },
  });
  return new Promise((resolve, reject) => {
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      const entry = JSON.parse(line) as { msg?: string; address?: string };
      if (entry.msg === 'batchwise serving') resolve({ proc, address: String(entry.address) });
    });
    proc.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
}

/** VmRSS of a process, MiB. */
export function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

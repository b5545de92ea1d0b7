import { vi } from 'vitest';
import { main } from '../../src/cli/main.js';

/** Runs the `batchwise` CLI in process and returns its exit code and what it wrote to stdout / stderr. */
export async function runCli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => ((out += String(s)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((err += String(s)), true));
  try {
    const code = await main(['node', 'batchwise', ...args]);
    return { code, out, err };
  } finally {
    vi.restoreAllMocks();
  }
}

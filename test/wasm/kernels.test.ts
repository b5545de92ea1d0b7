import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BandChain } from '../../src/policy/band.js';
import { solveChain } from '../../src/policy/chain.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('wasm kernels', () => {
  it('the checked-in binary is what wasm/kernels.ts builds to (the build is reproducible)', () => {
    const r = spawnSync(process.execPath, [join(root, 'scripts/build-wasm.mjs'), '--check'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  }, 120_000);

  it('each chain has a memory of its own: solving one leaves another solved one as it was', () => {
    const chain = (p: number): BandChain => {
      const ch = new BandChain(6, 1, 1);
      for (let i = 0; i < 6; i++) {
        if (i > 0) ch.add(i, i - 1, i < 5 ? 1 - p : 1);
        if (i < 5) ch.add(i, i + 1, i > 0 ? p : 1);
        ch.reward[i] = i;
        ch.time[i] = 1;
      }
      return ch;
    };
    const a = solveChain(chain(0.3), { ref: 2, refine: 1 });
    const before = { gain: a.gain, values: a.values.slice(), stationary: a.stationary.slice() };
    solveChain(chain(0.6), { ref: 2, refine: 1 });
    expect(a.values).toEqual(before.values);
    expect(a.stationary).toEqual(before.stationary);
    let total = 0;
    for (const v of a.stationary) total += v;
    expect(total).toBeCloseTo(1, 14);
  });
});

import { Writable } from 'node:stream';
import { pino } from 'pino';
import { expect } from 'vitest';
import type { Scenario } from '../../src/model/scenario.js';
import { BackendUnavailableError } from '../../src/solve/backends.js';
import { setGpuLogger } from '../../src/solve/gpu/log.js';
import type { GpuRunHooks } from '../../src/solve/gpu/rvi.js';
import { solveScenario } from '../../src/solve/solveScenario.js';

/** Helpers shared by the Poisson and MMPP GPU tests. */

/** A pino logger into memory: tests assert on the parsed lines. */
export function captureLogs(): Array<{ level: number; msg: string; err?: { message: string } }> {
  const lines: Array<{ level: number; msg: string }> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as { level: number; msg: string });
      done();
    },
  });
  setGpuLogger(pino({ level: 'debug' }, sink));
  return lines;
}

/** Destroys the device after the first chunk of sweeps has been submitted. */
export function destroyAfterFirstSubmit(): GpuRunHooks & { fired: number } {
  const h = {
    fired: 0,
    afterSubmit(info: { device: GPUDevice }) {
      if (h.fired++ === 0) info.device.destroy();
    },
  };
  return h;
}

/** With BATCHWISE_GPU=off, backend GPU is refused with the reason and AUTO solves on the CPU. */
export async function expectGpuOffRefuses(scenario: Scenario): Promise<void> {
  const saved = process.env.BATCHWISE_GPU;
  process.env.BATCHWISE_GPU = 'off';
  try {
    await expect(solveScenario(scenario, { backend: 'GPU' })).rejects.toThrow(BackendUnavailableError);
    await expect(solveScenario(scenario, { backend: 'GPU' })).rejects.toThrow('BATCHWISE_GPU=off');
    expect((await solveScenario(scenario, { backend: 'AUTO' })).solver.backend).toBe('cpu');
  } finally {
    if (saved === undefined) delete process.env.BATCHWISE_GPU;
    else process.env.BATCHWISE_GPU = saved;
  }
}

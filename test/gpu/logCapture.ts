import { Writable } from 'node:stream';
import { pino } from 'pino';
import { setGpuLogger } from '../../src/solve/gpu/log.js';
import type { GpuRunHooks } from '../../src/solve/gpu/rvi.js';

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

import type { Scenario } from '../../src/model/scenario.js';
import { logUniform, pick } from './random.js';

/** A random valid scenario: any scale of time, all distributions, linear or table inputs, load up to ρmax. */
export function randomScenario(r: () => number, opts: { maxB?: number; rhoMax?: number; cvMax?: number } = {}): Scenario {
  const maxB = opts.maxB ?? 16;
  const B = r() < 0.8 ? 1 + Math.floor(r() * Math.min(maxB, 16)) : 1 + Math.floor(r() * maxB);
  const scale = logUniform(r, 1e-6, 1e3); // seconds per batch, anywhere from µs to a quarter hour
  const base = scale * r();
  const perItem = (scale * r()) / B;
  const useTable = r() < 0.3;
  const table: number[] = [];
  if (useTable) {
    let v = scale * (0.1 + r());
    for (let b = 1; b <= B; b++) {
      v += (scale * r()) / B;
      table.push(r() < 0.1 ? v * (0.5 + r()) : v); // mostly increasing, sometimes not
    }
  }
  const lB = useTable ? table[B - 1] : perItem * B + base;
  const capacity = B / Math.max(lB, 1e-300);
  const rhoMax = opts.rhoMax ?? 0.98;
  const rho = r() < 0.1 ? rhoMax : 0.01 + r() * (rhoMax - 0.01);
  const distribution = pick(r, ['DETERMINISTIC', 'EXPONENTIAL', 'GAMMA'] as const);
  const busyBase = 50 * r();
  const busyPer = 5 * r();
  const latencyWeight = logUniform(r, 1e-3, 10);
  // Power weight such that w_pow·P is between 1/1000 and 10 times w_lat·l(B), or zero. (Objectives
  // where power outweighs latency by orders of magnitude are nearly degenerate: a documented limit.)
  const powerWeight = r() < 0.2 ? 0 : (logUniform(r, 1e-3, 10) * latencyWeight * lB) / Math.max(busyBase + busyPer * B, 1);
  return {
    arrivalRate: rho * capacity,
    maxBatchSize: B,
    serviceTime: {
      ...(useTable ? { table: { values: table } } : { linear: { perItem, base: lB === 0 ? scale : base } }),
      distribution,
      ...(distribution === 'GAMMA' ? { cv: logUniform(r, 0.05, opts.cvMax ?? 2.5) } : {}),
    },
    power: {
      idleWatts: 40 * r(),
      ...(r() < 0.2
        ? { busyTable: { values: Array.from({ length: B }, (_, i) => busyBase + busyPer * (i + 1) * (0.5 + r())) } }
        : { busyLinear: { perItem: busyPer, base: busyBase } }),
    },
    objective: { latencyWeight, powerWeight },
  };
}

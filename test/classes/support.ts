import type { RefClass } from './reference.js';

export interface CaseClass {
  name: string;
  rate: number;
  B: number;
  perItem: number;
  base: number;
  law: 'DETERMINISTIC' | 'EXPONENTIAL' | 'GAMMA';
  cv?: number;
  powerPerItem: number;
  powerBase: number;
  w: number;
  S?: number;
}

/** The same case as a scenario (for src) and as reference classes (for the tests' own model). */
export function scenarioOf(cls: CaseClass[], idle: number, wPow: number, tolerance = 1e-11): unknown {
  return {
    classes: cls.map((c) => ({
      name: c.name,
      arrivalRate: c.rate,
      maxBatchSize: c.B,
      serviceTime: { linear: { perItem: c.perItem, base: c.base }, distribution: c.law, ...(c.law === 'GAMMA' ? { cv: c.cv } : {}) },
      power: { busyLinear: { perItem: c.powerPerItem, base: c.powerBase } },
      latencyWeight: c.w,
      ...(c.S ? { maxQueue: c.S } : {}),
    })),
    power: { idleWatts: idle },
    objective: { powerWeight: wPow },
    solver: { tolerance },
  };
}

export function refOf(cls: CaseClass[]): RefClass[] {
  return cls.map((c) => ({
    rate: c.rate,
    B: c.B,
    perItem: c.perItem,
    base: c.base,
    cv: c.law === 'DETERMINISTIC' ? 0 : c.law === 'EXPONENTIAL' ? 1 : c.cv!,
    power: (b: number) => c.powerPerItem * b + c.powerBase,
    w: c.w,
  }));
}

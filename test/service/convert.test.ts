import { describe, expect, it } from 'vitest';
import { solveResultFromProto } from '../../src/service/convert/result.js';

describe('solveResultFromProto', () => {
  it('drops what proto3 decodes for unset fields, keeps the arrays every result has', () => {
    const decoded = {
      averageCost: 0.02,
      utilization: 0,
      arrivalProcess: null,
      phaseFigures: [],
      policy: { actions: [0, 1], controlLimit: 1, isControlLimit: true, deviations: [], phases: [] },
      solver: { backend: 'cpu', adapter: '', maxQueueTried: [141], gpuIterations: 0, polishSteps: 0, tailMass: 0 },
    };
    expect(solveResultFromProto(decoded)).toEqual({
      averageCost: 0.02,
      utilization: 0,
      policy: { actions: [0, 1], controlLimit: 1, isControlLimit: true, deviations: [] },
      solver: { backend: 'cpu', adapter: '', maxQueueTried: [141], tailMass: 0 },
    });
  });

  it('keeps set optional parts', () => {
    const r = solveResultFromProto({ policy: { actions: [0], deviations: [] }, solver: { gpuIterations: 120, maxQueueTried: [] }, phaseFigures: [{ phase: 0, share: 0.5 }] });
    expect(r.solver.gpuIterations).toBe(120);
    expect((r as unknown as { phaseFigures: unknown[] }).phaseFigures).toEqual([{ phase: 0, share: 0.5 }]);
  });
});

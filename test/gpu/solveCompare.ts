import { expect } from 'vitest';
import type { SolveResult } from '../../src/solve/result.js';

/**
 * The GPU path's contract: after the f64 polish it returns the same policy as the CPU, the
 * same exact cost to 1e-9, and a certificate of its own from the f64 Bellman step.
 */
export function expectSameAsCpu(gpu: SolveResult, cpu: SolveResult, adapter = true): void {
  expect(gpu.solver.maxQueue).toBe(cpu.solver.maxQueue);
  expect(Array.from(gpu.policy.actions)).toEqual(Array.from(cpu.policy.actions));
  expect(gpu.policy.controlLimit).toBe(cpu.policy.controlLimit);
  expect(Math.abs(gpu.averageCost - cpu.averageCost)).toBeLessThanOrEqual(1e-9 * Math.abs(cpu.averageCost));
  expect(gpu.averageCostLower).toBeLessThanOrEqual(gpu.averageCost * (1 + 1e-9));
  expect(gpu.averageCostUpper).toBeGreaterThanOrEqual(gpu.averageCost * (1 - 1e-9));
  if (adapter) {
    expect(gpu.solver.backend).toBe('webgpu');
    expect(gpu.solver.adapter.length).toBeGreaterThan(0);
    expect(gpu.solver.gpuIterations).toBeGreaterThan(0);
    expect(gpu.solver.polishSteps).toBeGreaterThanOrEqual(1);
  }
}

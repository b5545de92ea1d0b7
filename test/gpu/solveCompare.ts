import { expect } from 'vitest';
import type { ClassesSolveResult } from '../../src/solve/classes/result.js';
import type { SolveResult } from '../../src/solve/result.js';

/**
 * The GPU path's contract: after the f64 polish it returns the same policy as the CPU, the
 * same exact cost to 1e-9, and a certificate of its own from the f64 Bellman step.
 */
export function expectSameAsCpu(gpu: SolveResult, cpu: SolveResult, adapter = true): void {
  const S = cpu.solver.maxQueue;
  expect(gpu.solver.maxQueue).toBe(S);
  // Every action below the truncation level S is the same. The action at S itself is decided
  // by the tail extrapolation alone and may flip between actions tied to ~1e-12 (seen once:
  // serve 1 or 32 at S = 339 in the exponential spec case, both g within 3e-12); S carries
  // less than 1e-9 of the stationary mass by construction (docs/model.md §4).
  expect(gpu.policy.actions.slice(0, S)).toEqual(cpu.policy.actions.slice(0, S));
  expect(gpu.policy.actions.length).toBe(cpu.policy.actions.length);
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

/** A multi-class result's certificate and policy, as a solve and its message both carry them. */
type ClassesAnswer = Pick<ClassesSolveResult, 'averageCostLower' | 'averageCostUpper'> & { readonly policy: Pick<ClassesSolveResult['policy'], 'serveClass' | 'batch'> };

/** Both certified at `tolerance`: each interval holds the other's within it, and the same policy. */
export function expectSameClassesAsCpu(gpu: ClassesAnswer, cpu: ClassesAnswer, tolerance = 1e-9): void {
  const tol = tolerance * cpu.averageCostUpper;
  expect(gpu.averageCostUpper - gpu.averageCostLower).toBeLessThanOrEqual(tol);
  expect(gpu.averageCostLower).toBeLessThanOrEqual(cpu.averageCostUpper + tol);
  expect(gpu.averageCostUpper).toBeGreaterThanOrEqual(cpu.averageCostLower - tol);
  expect(gpu.policy.serveClass).toEqual(cpu.policy.serveClass);
  expect(gpu.policy.batch).toEqual(cpu.policy.batch);
}

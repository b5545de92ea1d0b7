/**
 * Multi-class scenarios and results (docs/model.md §10) to and from their messages: the proto
 * Scenario with `classes` set is the CLI's classes file format, so a decoded request needs only
 * what proto3 loses (zero scalars inside present messages); the result's nulls ("never within
 * S") travel as 0, which no control limit or switching point can be (both are ≥ 1).
 */
import type { ClassesPolicy, ClassesSolveResult } from '../../solve/classes/result.js';
import type { SolverProgress } from '../../solve/types.js';
import { isAbsent, isObj, type Obj } from '../../validate/index.js';
import type { SolveProgressMessage } from '../messages.js';
import { solveResultFromProto } from './result.js';
import { clean, scenarioFromProto } from './scenario.js';

/** Whether a decoded proto Scenario is the multi-class form (a non-empty `classes`). */
export function isClassesMessage(m: unknown): m is Obj & { classes: unknown[] } {
  return isObj(m) && Array.isArray(m.classes) && m.classes.length > 0;
}

/**
 * A decoded proto Scenario with classes → the JSON form validateClassesScenario reads. The
 * single-class fields are passed on as they came, so the validator refuses them by name.
 */
export function classesFromProto(m: Obj): Obj {
  const out = scenarioFromProto({ ...m, classes: undefined }) as Obj;
  out.classes = (m.classes as unknown[]).map((c) => {
    if (!isObj(c)) return c;
    const serviceTime = isObj(c.serviceTime) ? (scenarioFromProto({ serviceTime: c.serviceTime }) as Obj).serviceTime : c.serviceTime;
    const power = isObj(c.power) ? clean({ busyLinear: fit(c.power.busyLinear), busyTable: values(c.power.busyTable) }) : c.power;
    // An empty name is proto3's unset string: the validator's default (class<i>) applies.
    return clean({ name: c.name === '' ? undefined : c.name, arrivalRate: c.arrivalRate, maxBatchSize: c.maxBatchSize, serviceTime, power, latencyWeight: c.latencyWeight, maxQueue: c.maxQueue });
  });
  return out;
}

function fit(v: unknown): Obj | undefined {
  return isObj(v) ? { perItem: v.perItem ?? 0, base: v.base ?? 0 } : undefined;
}

function values(v: unknown): Obj | undefined {
  return isObj(v) ? { values: Array.isArray(v.values) ? v.values : [] } : undefined;
}

const zeroForNull = (v: number | null): number => v ?? 0;
const nullForZero = (v: number): number | null => (v === 0 ? null : v);

/** The result as the ClassesSolveResult message. */
export function classesResultToProto(r: ClassesSolveResult): Obj {
  const { policy: p, solver: s } = r;
  return {
    ...r,
    policy: { ...p, controlLimits: p.controlLimits.map(zeroForNull), ...(p.switchingCurve ? { switchingCurve: p.switchingCurve.map(zeroForNull) } : {}) },
    solver: { ...s, maxQueueTried: s.maxQueueTried.map((box) => ({ maxQueue: box })) },
  };
}

/** A decoded ClassesSolveResult (client side, defaults on) → the library's result. */
export function classesResultFromProto(m: Obj): ClassesSolveResult {
  const p = m.policy as Obj;
  const s = m.solver as Obj;
  const curve = p.switchingCurve as number[];
  const policy: ClassesPolicy = {
    maxQueue: p.maxQueue as number[],
    serveClass: p.serveClass as number[],
    batch: p.batch as number[],
    controlLimits: (p.controlLimits as number[]).map(nullForZero),
    // Empty for one or three classes: the curve is drawn for two only.
    ...(curve.length > 0 ? { switchingCurve: curve.map(nullForZero) } : {}),
  };
  const { sweepWork, maxQueueTried, adapter, gpuIterations, threads, ...facts } = s;
  const solver = {
    ...(facts as unknown as ClassesSolveResult['solver']),
    // Empty unless the GPU's f32 stage ran (backend webgpu).
    ...(adapter !== '' ? { adapter: adapter as string, gpuIterations: gpuIterations as number } : {}),
    // 0 for one class (the single-class path reports no threads).
    ...(threads !== 0 ? { threads: threads as number } : {}),
    maxQueueTried: (maxQueueTried as Obj[]).map((b) => b.maxQueue as number[]),
    // Absent for one class (solved by the single-class path).
    ...(sweepWork !== 0 ? { sweepWork: sweepWork as number } : {}),
  };
  const { single, classes, latencyUnavailable, ...figures } = m;
  return {
    ...(figures as unknown as Pick<ClassesSolveResult, 'averageCost' | 'meanPower' | 'averageCostLower' | 'averageCostUpper'>),
    classes: classes as ClassesSolveResult['classes'],
    policy,
    solver,
    ...(isAbsent(single) ? {} : { single: solveResultFromProto(single) }),
    // proto3 `optional`: unset reads as absent or null.
    ...(typeof latencyUnavailable === 'string' ? { latencyUnavailable } : {}),
  };
}

/** The classes solve's progress → SolveProgress: bounds, iteration and the box (no single-class policy). */
export interface ClassesProgress {
  readonly iteration: number;
  readonly lower: number;
  readonly upper: number;
  readonly box: readonly number[];
}

export function classesProgress(p: SolverProgress, box: readonly number[]): ClassesProgress {
  return { iteration: p.iteration, lower: p.lower, upper: p.upper, box };
}

export function classesProgressToProto(p: ClassesProgress): SolveProgressMessage {
  return { iteration: p.iteration, averageCostLower: p.lower, averageCostUpper: p.upper, maxQueue: Math.max(...p.box), controlLimit: 0, classMaxQueue: [...p.box] };
}

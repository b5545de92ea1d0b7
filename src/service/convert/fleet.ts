/**
 * Fleet messages (proto `FleetScenario`, `FleetSimulation`, `SegregationPlan`) to and from the
 * library's JSON and result types. The JSON mapping of FleetScenario is the fleet file format,
 * so a decoded request needs only what proto3 loses: zero scalars inside present messages
 * (a linear fit with base 0), handled by the scenario converter for each service-time model.
 */
import type { FleetRun } from '../../fleet/run.js';
import type { FleetPlanAnswer } from '../../fleet/request.js';
import type { FleetSimulation } from '../../fleet/result.js';
import type { GroupSolve, SegregationPlan } from '../../fleet/segregation.js';
import { isAbsent, isObj, type Obj } from '../../validate/index.js';
import { clean, scenarioFromProto } from './scenario.js';

/** A decoded proto FleetScenario → the JSON form validateFleet reads. */
export function fleetFromProto(m: unknown): unknown {
  if (!isObj(m)) return m;
  const out: Obj = {};
  if (Array.isArray(m.classes)) {
    out.classes = m.classes.map((c: unknown) =>
      isObj(c) ? clean({ name: c.name, arrivalRate: c.arrivalRate, latencyTarget: c.latencyTarget, weight: c.weight, arrivalProcess: c.arrivalProcess }) : c,
    );
  }
  if (Array.isArray(m.accelerators)) {
    out.accelerators = m.accelerators.map((a: unknown) => {
      if (!isObj(a)) return a;
      let serviceTime: Obj | undefined;
      if (isObj(a.serviceTime)) {
        serviceTime = {};
        for (const [name, st] of Object.entries(a.serviceTime)) serviceTime[name] = (scenarioFromProto({ serviceTime: st }) as Obj).serviceTime;
      }
      const power = isObj(a.power) ? (scenarioFromProto({ power: a.power }) as Obj).power : undefined;
      return clean({ name: a.name, count: a.count, maxBatchSize: a.maxBatchSize, serviceTime, power, policy: a.policy === '' ? undefined : a.policy });
    });
  }
  if (!isAbsent(m.batching)) out.batching = m.batching;
  if (isObj(m.objective)) out.objective = clean({ latencyWeight: m.objective.latencyWeight, powerWeight: m.objective.powerWeight });
  return out;
}

/**
 * The fleet file's JSON as a request field: the same JSON, except that an MMPP generator given
 * as rows (which the file format allows) is sent flat, as the proto's repeated double.
 */
export function fleetToProto(json: unknown): unknown {
  if (!isObj(json) || !Array.isArray(json.classes)) return json;
  return {
    ...json,
    classes: json.classes.map((c: unknown) => {
      if (!isObj(c) || !isObj(c.arrivalProcess) || !isObj(c.arrivalProcess.mmpp)) return c;
      const g = c.arrivalProcess.mmpp.generator;
      if (!Array.isArray(g) || !g.every(Array.isArray)) return c;
      return { ...c, arrivalProcess: { ...c.arrivalProcess, mmpp: { ...c.arrivalProcess.mmpp, generator: (g as unknown[][]).flat() } } };
    }),
  };
}

/** Router weights as the file has them (theta: rows of numbers) → the message (rows as WeightRow). */
export function weightsToProto(w: unknown): unknown {
  if (!isObj(w) || !Array.isArray(w.theta)) return w;
  return { ...w, theta: w.theta.map((row: unknown) => (Array.isArray(row) ? { values: row } : row)) };
}

/** A decoded RouterWeights message → the file's form (theta rows as arrays; an empty row arrives without values). */
export function weightsFromProto(m: unknown): unknown {
  if (!isObj(m)) return m;
  const theta = Array.isArray(m.theta) ? m.theta.map((row: unknown) => (isObj(row) ? (Array.isArray(row.values) ? row.values : []) : row)) : m.theta;
  return clean({ format: m.format, accelerators: m.accelerators, classes: m.classes, theta, tau: m.tau });
}

/** The plan as a message: counts[k] as a row of per-class counts. */
export function planToProto(p: SegregationPlan): Obj {
  return { ...p, counts: p.counts.map((row) => ({ classes: [...row] })) };
}

export function fleetRunToProto(r: FleetRun): Obj {
  return { simulation: r.simulation, ...(r.plan ? { plan: planToProto(r.plan) } : {}) };
}

export function fleetPlanToProto(a: FleetPlanAnswer): Obj {
  return { ...a, plan: planToProto(a.plan) };
}

/** A decoded FleetSimulation (client, defaults on) → the library's type: unset CI half-widths are null. */
export function fleetSimulationFromProto(m: Obj): FleetSimulation {
  const ci = (v: unknown): number | null => (typeof v === 'number' ? v : null);
  return {
    ...(m as unknown as FleetSimulation),
    averageCostCi: ci(m.averageCostCi),
    meanPowerCi: ci(m.meanPowerCi),
    classes: ((m.classes as Obj[] | undefined) ?? []).map((c) => ({ ...(c as unknown as FleetSimulation['classes'][number]), meanResponseCi: ci(c.meanResponseCi) })),
  };
}

/** A decoded SegregationPlan → the library's type (counts as rows; phases only for MMPP groups). */
export function planFromProto(m: Obj): SegregationPlan {
  const rows = (m.counts as { classes?: number[] }[] | undefined) ?? [];
  const groups = ((m.groups as Obj[] | undefined) ?? []).map((g) => {
    const { phases, ...rest } = g;
    return (Array.isArray(phases) && phases.length > 0 ? { ...rest, phases } : rest) as unknown as GroupSolve;
  });
  return { ...(m as unknown as SegregationPlan), counts: rows.map((r) => r.classes ?? []), groups };
}

export function fleetRunFromProto(m: Obj): FleetRun {
  return { simulation: fleetSimulationFromProto(m.simulation as Obj), ...(isObj(m.plan) ? { plan: planFromProto(m.plan) } : {}) };
}

export function fleetPlanFromProto(m: Obj): FleetPlanAnswer {
  const plan = planFromProto(m.plan as Obj);
  if (typeof m.kind === 'string' && m.kind !== '') return { plan, kind: m.kind, count: m.count as number, rejected: (m.rejected as number[] | undefined) ?? [] };
  return { plan };
}

import type { ClassesModel } from '../../model/classes/compile.js';

/** One class's long-run figures under a policy. */
export interface ClassFigures {
  readonly name: string;
  /** E[R_c] = E[N_c]/λ_c, seconds (N_c counts the class's requests waiting and in service). */
  readonly meanResponseTime: number;
  /** Share of time a batch of this class is in service. */
  readonly utilization: number;
  /** Mean size of this class's batches (0 if none are served). */
  readonly meanBatchSize: number;
}

export interface ClassesFigures {
  /** Σ_c w_c·E[R_c] + w_pow·E[P]. */
  readonly averageCost: number;
  readonly meanPower: number;
  readonly classes: ClassFigures[];
}

/**
 * Figures from the time-stationary law π̃ (stationary.ts): per state the time average of N_c over
 * the sojourn is n_c while waiting and n_c + λ_c·m2(b)/(2·l(b)) while serving b (the arrivals
 * during the batch); power is P0 or P_c(b); batches of a state start at rate π̃/y.
 */
export function classesFigures(model: ClassesModel, policy: Int32Array, pi: Float64Array): ClassesFigures {
  const { C, dims, states, actionClass, actionBatch, params: p } = model;
  const N = new Float64Array(C);
  const busy = new Float64Array(C);
  const starts = new Float64Array(C);
  const served = new Float64Array(C);
  let power = 0;
  const n = new Int32Array(C);
  for (let x = 0; x < states; x++) {
    if (x > 0) for (let a = C - 1; a >= 0 && ++n[a] === dims[a]; a--) n[a] = 0;
    const m = pi[x];
    for (let c = 0; c < C; c++) N[c] += m * n[c];
    const act = policy[x];
    if (act === 0) {
      power += m * p.idlePower;
      continue;
    }
    const c0 = actionClass[act];
    const b = actionBatch[act];
    const cl = p.classes[c0];
    const l = cl.meanService[b];
    for (let c = 0; c < C; c++) N[c] += (m * p.classes[c].arrivalRate * cl.secondMoment[b]) / (2 * l);
    power += m * cl.busyPower[b];
    busy[c0] += m;
    starts[c0] += m / l;
    served[c0] += (m / l) * b;
  }
  const classes = p.classes.map((cl, c) => ({
    name: cl.name,
    meanResponseTime: N[c] / cl.arrivalRate,
    utilization: busy[c],
    meanBatchSize: starts[c] > 0 ? served[c] / starts[c] : 0,
  }));
  let averageCost = p.powerWeight * power;
  classes.forEach((f, c) => (averageCost += p.classes[c].latencyWeight * f.meanResponseTime));
  return { averageCost, meanPower: power, classes };
}

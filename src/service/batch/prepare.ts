import type { ValidatedClassesScenario } from '../../model/classes/params.js';
import type { ValidatedScenario } from '../../model/scenario.js';
import { canonicalKey } from '../cache/canonical.js';
import type { ServiceLimits } from '../config.js';
import { isClassesMessage } from '../convert/classes.js';
import { parseClassesScenario, parseScenario } from '../convert/parse.js';
import { toWire, type WireError } from '../pool/wire.js';
import { estimateWork } from '../solving/work.js';
import { firstBoxWork } from '../../solve/classes/firstBox.js';
import { readFlags } from '../../solve/gpu/flags.js';

/**
 * One batch scenario validated (on a pool worker): a single-class scenario with its cache key
 * and estimated work, a multi-class one (docs/model.md §10: keyed by the coordinator, which caches it; its joint
 * states are held to maxStates instead, as in Solve; backend AUTO with two or three classes: with its
 * first box's sweep work, which routes it, gpuExecutor.ts), or why it was refused.
 */
export type Prepared =
  | { readonly ok: true; readonly scenario: ValidatedScenario; readonly key: string; readonly work: number; readonly classes?: undefined }
  | { readonly ok: true; readonly classes: ValidatedClassesScenario; readonly firstBoxWork?: number }
  | { readonly ok: false; readonly error: WireError };

/**
 * Validates scenarios in their JSON form within the service's limits: the per-scenario work
 * of a SolveBatch (a trace is fitted here, once per distinct trace and thread, fitCache.ts),
 * run as the pool's `prepare` job so the thread that answers health checks and cancels never
 * does it. Each scenario by its own form (a `classes` field or not). Errors travel as data
 * (pool/wire.ts).
 */
export function prepareScenarios(raws: readonly unknown[], limits: ServiceLimits): Prepared[] {
  return raws.map((raw): Prepared => {
    try {
      if (isClassesMessage(raw)) return classesPrepared(parseClassesScenario(raw, limits));
      const scenario = parseScenario(raw, limits);
      return { ok: true, scenario, key: canonicalKey(scenario), work: estimateWork(scenario).entries };
    } catch (e) {
      return { ok: false, error: toWire(e) };
    }
  });
}

/**
 * A multi-class scenario; backend AUTO with two or three classes also its first box's sweep work
 * (the AUTO rule's measure, computed here off the main thread), except with BATCHWISE_GPU=off,
 * where no adapter is asked for and the work would route nothing (two model compilations saved).
 */
function classesPrepared(classes: ValidatedClassesScenario): Prepared {
  if (classes.solver.backend !== 'AUTO' || classes.params.classes.length < 2 || readFlags().BATCHWISE_GPU === 'off') return { ok: true, classes };
  try {
    return { ok: true, classes, firstBoxWork: firstBoxWork(classes.params) };
  } catch {
    // A first box past the bounds: the solve says so by name; without the work the scenario stays on the pool.
    return { ok: true, classes };
  }
}

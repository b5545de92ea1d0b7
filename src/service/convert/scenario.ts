import { ScenarioError } from '../../model/errors.js';
import { checkPolicy, parsePolicySpec, type Policy } from '../../policy/policy.js';
import { isAbsent, isObj, type Obj } from '../../validate/index.js';
import type { PolicySpecMessage } from '../messages.js';

/**
 * A decoded proto Scenario → the JSON form the validator reads. proto3 does not send
 * zero scalars, so inside a message that is present a missing number means 0 (a linear fit
 * with base 0 arrives without `base`); top-level numbers and sub-messages stay absent when
 * unset, so the validator can say which required field is missing.
 */
export function scenarioFromProto(m: unknown): unknown {
  if (!isObj(m)) return m;
  const out: Obj = {};
  copy(m, out, 'arrivalRate');
  copy(m, out, 'maxBatchSize');
  // Bursty arrivals (docs/model.md §7): the oneof arrives as the one set kind; the validator reads it as is.
  copy(m, out, 'arrivalProcess');
  // The multi-class field, kept as it came so that where only the single-class form applies it is refused by name.
  if (Array.isArray(m.classes) && m.classes.length > 0) out.classes = m.classes;
  if (isObj(m.serviceTime)) {
    const st = m.serviceTime;
    out.serviceTime = clean({
      linear: linear(st.linear),
      table: table(st.table),
      distribution: st.distribution,
      cv: st.cv,
    });
  }
  if (isObj(m.power)) {
    const p = m.power;
    out.power = clean({ idleWatts: p.idleWatts, busyLinear: linear(p.busyLinear), busyTable: table(p.busyTable) });
  }
  if (isObj(m.objective)) out.objective = clean({ latencyWeight: m.objective.latencyWeight, powerWeight: m.objective.powerWeight });
  if (isObj(m.restrictions)) {
    const r = m.restrictions;
    // proto3 sends no empty repeated field and no zero scalar: an empty list is unset, not [].
    const sizes = Array.isArray(r.allowedBatchSizes) && r.allowedBatchSizes.length > 0 ? r.allowedBatchSizes : undefined;
    out.restrictions = clean({ allowedBatchSizes: sizes, batchSizeRule: r.batchSizeRule, maxOngoingRequests: r.maxOngoingRequests });
  }
  if (isObj(m.solver)) {
    const s = m.solver;
    out.solver = clean({ maxQueue: s.maxQueue, tolerance: s.tolerance, maxIterations: s.maxIterations, backend: s.backend, method: s.method });
  }
  return out;
}

function linear(v: unknown): Obj | undefined {
  return isObj(v) ? { perItem: v.perItem ?? 0, base: v.base ?? 0 } : undefined;
}

function table(v: unknown): Obj | undefined {
  return isObj(v) ? { values: Array.isArray(v.values) ? v.values : [] } : undefined;
}

function copy(from: Obj, to: Obj, key: string): void {
  if (!isAbsent(from[key])) to[key] = from[key];
}

/** `o` without its unset (undefined or null) fields, as the validators expect absent ones. */
export function clean(o: Obj): Obj {
  for (const k of Object.keys(o)) if (isAbsent(o[k])) delete o[k];
  return o;
}

/** A PolicySpec message → a Policy checked against the scenario's B; errors name `policy.spec` / `policy.table.actions[i]`. */
export function policyFromProto(m: PolicySpecMessage | undefined, B: number): Policy {
  if (m?.spec !== undefined && m.spec !== '') return parsePolicySpec(m.spec, B, 'policy.spec');
  if (m?.table) {
    const actions = m.table.actions ?? [];
    if (actions.length === 0) throw new ScenarioError('policy.table.actions', 'needs at least one action (a0 = 0)');
    const policy: Policy = { actions: Int32Array.from(actions), tailBatch: B };
    checkPolicy(policy, B, 'policy.table');
    return policy;
  }
  throw new ScenarioError('policy', 'is required: give spec (greedy | static:b | control-limit:M | table:…) or table');
}

import { describeRestriction, unrestrictedParams } from '../../model/restriction.js';
import type { Backend, ModelParams } from '../../model/scenario.js';
import { solveScenario } from '../../solve/solveScenario.js';
import { asValidated } from '../frontier.js';
import { readConfig } from './readConfig.js';
import { configuredParams } from './restricted.js';
import { simulateSideBySide, type SideBySide, type UnrestrictedReference } from './sideBySide.js';
import { TARGETS, type ExportTarget } from './targets.js';

/**
 * The round trip of an export: a serving system's own configuration file (readConfig.ts) run in
 * simulation as that system's batcher, next to the optimal policy on the same arrivals, so the
 * gap of a setting already deployed is measured the way `export` measures its own: against the
 * optimum under what the file imposes on any policy the target could run (restricted.ts,
 * configuredParams), and then also against the unrestricted one.
 */
export interface ConfigEvaluationOptions {
  /** Requests of each simulation (default 10⁶). */
  readonly requests?: number;
  readonly seed?: number;
  readonly signal?: AbortSignal;
  readonly backend?: Backend;
  /** The TorchServe model or Ray deployment to read where the file holds several (readConfig). */
  readonly modelName?: string;
}

export interface ConfigEvaluation extends SideBySide {
  readonly target: ExportTarget;
  readonly label: string;
  /** The batcher as simulated, in the simulator's policy syntax (docs/simulator.md). */
  readonly policy: string;
  /** Where the configuration departs from the modelled single server. */
  readonly notes: string[];
  /**
   * The restriction the optimum was solved under (describeRestriction), from the file (TF Serving's
   * allowed_batch_sizes, a Ray cap below B) or the scenario; absent when none. `optimal` and `gap` are
   * then the restricted optimum's, `unrestricted` the plain one's.
   */
  readonly restriction?: string;
}

export async function evaluateConfig(input: unknown, target: ExportTarget, text: string, file: string, o: ConfigEvaluationOptions = {}): Promise<ConfigEvaluation> {
  const scenario = asValidated(input);
  // The file is read against the scenario's own B: a restriction's cap is not a max batch size the file must keep to.
  const read = readConfig(target, text, file, unrestrictedParams(scenario.params).maxBatchSize, o.modelName);
  const { params: p, notes } = configuredParams(scenario.params, read.restrictions);
  const solve = (params: ModelParams): ReturnType<typeof solveScenario> => solveScenario({ params, solver: scenario.solver }, { signal: o.signal, backend: o.backend, percentiles: false });
  const solved = await solve(p);
  // Restricted: the unrestricted optimum too, simulated on the same arrivals (as the export reports it).
  const reference: UnrestrictedReference | undefined = p.restriction ? { params: p.restriction.unrestricted, solved: await solve(p.restriction.unrestricted) } : undefined;
  const side = simulateSideBySide(p, read.policy, solved, { requests: o.requests ?? 1_000_000, seed: o.seed ?? 1, signal: o.signal }, reference);
  return {
    target,
    label: TARGETS[target].label,
    policy: read.policy.name,
    notes: [...read.notes, ...notes],
    ...(p.restriction ? { restriction: describeRestriction(p.restriction) } : {}),
    ...side,
  };
}

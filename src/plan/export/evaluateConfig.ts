import type { Backend } from '../../model/scenario.js';
import { solveScenario } from '../../solve/solveScenario.js';
import { asValidated } from '../frontier.js';
import { readConfig } from './readConfig.js';
import { simulateSideBySide, type SideBySide } from './sideBySide.js';
import { TARGETS, type ExportTarget } from './targets.js';

/**
 * The round trip of an export: a serving system's own configuration file (readConfig.ts) run in
 * simulation as that system's batcher, next to the optimal policy on the same arrivals, so the
 * gap of a setting already deployed is measured the way `export` measures its own.
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
}

export async function evaluateConfig(input: unknown, target: ExportTarget, text: string, file: string, o: ConfigEvaluationOptions = {}): Promise<ConfigEvaluation> {
  const scenario = asValidated(input);
  const p = scenario.params;
  const read = readConfig(target, text, file, p.maxBatchSize, o.modelName);
  const solved = await solveScenario(scenario, { signal: o.signal, backend: o.backend });
  const side = simulateSideBySide(p, read.policy, solved, { requests: o.requests ?? 1_000_000, seed: o.seed ?? 1, signal: o.signal });
  return { target, label: TARGETS[target].label, policy: read.policy.name, notes: read.notes, ...side };
}

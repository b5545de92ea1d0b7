import { ScenarioError } from '../../model/errors.js';
import type { ValidatedScenario } from '../../model/scenario.js';
import { validateScenario } from '../../model/validate.js';
import type { SolutionCache } from '../cache/solutionCache.js';
import { checkScenarioLimits, type ServiceLimits } from '../config.js';
import { scenarioFromProto } from '../convert/scenario.js';
import type { BatchExecutor } from '../batch/executor.js';
import type { WorkerPool } from '../pool/workerPool.js';
import type { SolveCoordinator } from '../solving/coordinator.js';

/** What handlers may use. A new RPC takes what it needs from here (add fields as needed). */
export interface ServiceDeps {
  readonly limits: ServiceLimits;
  readonly pool: WorkerPool;
  readonly cache: SolutionCache;
  readonly coordinator: SolveCoordinator;
  /** The CPU pool executor; registered executors are asked first (see batch/executor.ts). */
  readonly cpuBatchExecutor: BatchExecutor;
  /** Executors besides the CPU pool, asked in order (default: the registered ones). */
  readonly batchExecutors: () => readonly BatchExecutor[];
  /** Default least time between progress updates of a streamed solve. */
  readonly progressIntervalMs: number;
}

/** Decoded proto Scenario → validated scenario within the service's limits; field paths relative to the scenario. */
export function parseScenario(raw: unknown, limits: ServiceLimits): ValidatedScenario {
  if (raw === undefined || raw === null) throw new ScenarioError('scenario', 'is required');
  const scenario = validateScenario(scenarioFromProto(raw));
  checkScenarioLimits(scenario, limits);
  return scenario;
}

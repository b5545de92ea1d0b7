/**
 * The simulator's one discrete-event engine: N servers (accelerators) × C request classes with
 * a router, of which the single-server simulator (src/sim/simulate.ts) is the case N = C = 1
 * and the fleet (src/fleet) the general one. types.ts: what it takes and returns; run.ts: the
 * event loop; servers.ts: queues and batch starts; contract.ts: the policy contract, checked;
 * meter.ts: warm-up, window and batch-means groups; ring.ts: the per-class FIFO.
 */
export { runEngine } from './run.js';
export type { EngineSystem, EngineServer, ServiceLaw, EngineOptions, EngineOutput, Router, FleetView } from './types.js';

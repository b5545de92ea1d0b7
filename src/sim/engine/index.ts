/**
 * The simulator's one discrete-event engine: N servers (accelerators) × C request classes with
 * a router, of which the single-server simulator (src/sim/simulate.ts) is the case N = C = 1
 * and the fleet (src/fleet) the general one. types.ts: what it takes and returns; run.ts: the
 * event loop, decisions and batch starts; context.ts: one run's set-up; state.ts: the servers'
 * state (the routers' FleetView); meter.ts: warm-up, window and batch-means groups; ring.ts:
 * the per-class FIFO; contract.ts, mixed.ts, hol.ts: policy errors, mixed batches,
 * head-of-line clocks.
 */
export { runEngine } from './run.js';
export type { EngineSystem, EngineServer, ServiceLaw, EngineOptions, EngineOutput, Router, FleetView } from './types.js';

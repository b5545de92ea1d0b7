/**
 * Routers: which accelerator an arriving request joins, decided at its arrival from what
 * a load balancer could see (queue lengths, whether a batch is running and until when).
 */
import { ScenarioError } from '../model/errors.js';
import type { FleetView, Router } from '../sim/engine/index.js';
import { Rng } from '../sim/rng.js';
import { ROUTER_NAMES, type RouterName } from './routerNames.js';

// The engine defines what a router is and sees; the fleet's routers implement it.
export type { FleetView, Router } from '../sim/engine/index.js';

/** Stream number of the router's random choices (the simulator uses 0 and 1 + accelerator). */
export const STREAM_ROUTER = 0x7fff;

export class RoundRobin implements Router {
  readonly name = 'round-robin';
  private next = 0;
  constructor(private readonly n: number) {}
  route(): number {
    const a = this.next;
    this.next = (a + 1) % this.n;
    return a;
  }
  reset(): void {
    this.next = 0;
  }
}

export class RandomRouter implements Router {
  readonly name = 'random';
  private rng: Rng;
  constructor(
    private readonly n: number,
    private readonly seed: number,
  ) {
    this.rng = new Rng(seed, STREAM_ROUTER);
  }
  route(): number {
    return Math.floor(this.rng.nextDouble() * this.n);
  }
  reset(): void {
    this.rng = new Rng(this.seed, STREAM_ROUTER);
  }
}

const load = (v: FleetView, a: number): number => v.waiting(a) + v.inService(a);

/** Join the shortest queue (waiting + in service); ties go to the lowest index. */
export class ShortestQueue implements Router {
  readonly name = 'jsq';
  route(_c: number, v: FleetView): number {
    let best = 0;
    let bestLoad = load(v, 0);
    for (let a = 1; a < v.size; a++) {
      const l = load(v, a);
      if (l < bestLoad) {
        best = a;
        bestLoad = l;
      }
    }
    return best;
  }
  reset(): void {}
}

/** Power of two choices: sample two distinct accelerators, join the shorter. */
export class PowerOfTwo implements Router {
  readonly name = 'p2c';
  private rng: Rng;
  constructor(private readonly seed: number) {
    this.rng = new Rng(seed, STREAM_ROUTER);
  }
  route(_c: number, v: FleetView): number {
    const n = v.size;
    if (n === 1) return 0;
    const a = Math.floor(this.rng.nextDouble() * n);
    let b = Math.floor(this.rng.nextDouble() * (n - 1));
    if (b >= a) b++;
    return load(v, b) < load(v, a) ? b : a;
  }
  reset(): void {
    this.rng = new Rng(this.seed, STREAM_ROUTER);
  }
}

/**
 * Least expected work: the running batch's remaining time plus the amortised work of what
 * waits, plus the newcomer's own work on that kind (so a slow kind must be emptier to win).
 */
export class LeastExpectedWork implements Router {
  readonly name = 'lew';
  constructor(private readonly classes: number) {}
  route(c: number, v: FleetView): number {
    let best = 0;
    let bestWork = Infinity;
    for (let a = 0; a < v.size; a++) {
      let w = v.remaining(a) + v.perItem(a, c);
      for (let k = 0; k < this.classes; k++) w += v.waitingOf(a, k) * v.perItem(a, k);
      if (w < bestWork) {
        best = a;
        bestWork = w;
      }
    }
    return best;
  }
  reset(): void {}
}

/**
 * Class segregation: class c goes only to its dedicated accelerators, uniformly at random
 * among them, so each sees Poisson arrivals at λ_c/n_c and the exact single-server model
 * (and its optimal policy) describes it exactly.
 */
export class Segregation implements Router {
  readonly name = 'segregation';
  private rng: Rng;
  constructor(
    /** groups[c] = accelerators dedicated to class c. */
    private readonly groups: readonly (readonly number[])[],
    private readonly seed: number,
  ) {
    groups.forEach((g, c) => {
      if (g.length === 0) throw new ScenarioError('router', `segregation gives class ${c} no accelerator`);
    });
    this.rng = new Rng(seed, STREAM_ROUTER);
  }
  route(c: number): number {
    const g = this.groups[c];
    return g.length === 1 ? g[0] : g[Math.floor(this.rng.nextDouble() * g.length)];
  }
  reset(): void {
    this.rng = new Rng(this.seed, STREAM_ROUTER);
  }
}

export { ROUTER_NAMES, type RouterName };

export function parseRouterName(s: string): RouterName {
  const n = s.trim().toLowerCase();
  const alias: Record<string, RouterName> = { rr: 'round-robin', 'join-shortest-queue': 'jsq', 'power-of-two': 'p2c', 'least-expected-work': 'lew' };
  const r = alias[n] ?? n;
  if (!(ROUTER_NAMES as readonly string[]).includes(r)) throw new ScenarioError('router', `unknown router ${JSON.stringify(s)} (known: ${ROUTER_NAMES.join(', ')})`);
  return r as RouterName;
}

/** Routers that need nothing but the fleet's size and a seed. */
export function simpleRouter(name: Exclude<RouterName, 'segregation' | 'learned'>, n: number, classes: number, seed: number): Router {
  switch (name) {
    case 'round-robin':
      return new RoundRobin(n);
    case 'random':
      return new RandomRouter(n, seed);
    case 'jsq':
      return new ShortestQueue();
    case 'p2c':
      return new PowerOfTwo(seed);
    case 'lew':
      return new LeastExpectedWork(classes);
  }
}

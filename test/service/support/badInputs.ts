import * as grpc from '@grpc/grpc-js';
import { ScenarioError } from '../../../src/model/errors.js';
import { validateScenario } from '../../../src/model/validate.js';
import { validateFleet } from '../../../src/fleet/scenario.js';
import { fleetToProto } from '../../../src/service/convert/fleet.js';
import { fleetJsonNames } from '../../../src/service/convert/jsonNames.js';
import { parsePlanningRequest } from '../../../src/plan/request.js';
import { loadPackageDefinition } from '../../../src/service/proto.js';
import { twoClassFleet } from '../../fleet/helpers.js';
import { specCapacity, specScenario } from '../../helpers/scenarios.js';

/**
 * The bad-input calls of the generated suite, shared by the test (which checks each outcome) and
 * the benchmark (which times them against a real `batchwise serve`): every numeric field of a
 * scenario at seven bad values through Evaluate, Simulate, Plan, Solve, Frontier and Export; every
 * numeric field of a fleet through FleetSimulate and FleetPlan; Plan's target fields at bad values
 * and in pairs; oversized strings;
 * raw bytes that are no protobuf at all, on every RPC.
 */
type Callback = (e: grpc.ServiceError | null, r?: unknown) => void;
type Raw = grpc.Client & Record<string, (req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb?: Callback) => unknown>;
type MethodTable = Record<string, { path: string; responseStream: boolean }>;

export interface Outcome {
  readonly code: number;
  readonly details: string;
  readonly field?: string;
}

/** One call made and how it ended. `refusal`: the field the in-process validator names, if it refuses. */
export interface BadCall {
  readonly group: 'numeric' | 'fleet' | 'targets' | 'strings' | 'garbage';
  readonly rpc: string;
  readonly label: string;
  readonly outcome: Outcome;
  readonly refusal?: string;
  /** Wall time of the call, from the client, ms. */
  readonly ms: number;
}

const DOUBLE_FIELDS: Array<[string, (s: Record<string, any>, v: number) => void]> = [
  ['arrivalRate', (s, v) => (s.arrivalRate = v)],
  ['serviceTime.linear.perItem', (s, v) => (s.serviceTime.linear.perItem = v)],
  ['serviceTime.linear.base', (s, v) => (s.serviceTime.linear.base = v)],
  ['serviceTime.cv', (s, v) => ((s.serviceTime.cv = v), (s.serviceTime.distribution = 'GAMMA'))],
  ['power.idleWatts', (s, v) => (s.power.idleWatts = v)],
  ['power.busyLinear.perItem', (s, v) => (s.power.busyLinear.perItem = v)],
  ['power.busyLinear.base', (s, v) => (s.power.busyLinear.base = v)],
  ['objective.latencyWeight', (s, v) => (s.objective.latencyWeight = v)],
  ['objective.powerWeight', (s, v) => (s.objective.powerWeight = v)],
  ['solver.tolerance', (s, v) => (s.solver = { tolerance: v })],
];
const BAD_VALUES = [-1, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e308, 5e-324, 1e12];

export function numericCases(): Array<{ name: string; scenario: Record<string, unknown>; refusal?: string }> {
  const out: Array<{ name: string; scenario: Record<string, unknown>; refusal?: string }> = [];
  for (const [path, set] of DOUBLE_FIELDS) {
    for (const v of BAD_VALUES) {
      const s = JSON.parse(JSON.stringify(specScenario(1000, 1e-4))) as Record<string, any>;
      set(s, v);
      out.push(withRefusal(`${path} = ${v}`, s));
    }
  }
  // Near capacity (B / l(B) = 32 / 6.489 ms ≈ 4931 /s) and extreme time scales (the same case in
  // 0.1 µs or in hours, rates and power weight scaled to match).
  const capacity = specCapacity(32);
  for (const f of [0.999, 1, 1.001, 2]) out.push(withRefusal(`arrivalRate = ${f} × capacity`, specScenario(f * capacity, 1e-4) as unknown as Record<string, unknown>));
  for (const f of [1e-4, 1e-7, 1e3, 1e9]) {
    const s = specScenario(4000 / f, 1e-4 * f, { serviceTime: { linear: { perItem: 0.0001438 * f, base: 0.0018874 * f }, distribution: 'DETERMINISTIC' } });
    out.push(withRefusal(`time scale × ${f}`, s as unknown as Record<string, unknown>));
  }
  return out;
}

const FLEET_FIELDS: Array<[string, (f: Record<string, any>, v: number) => void]> = [
  ['classes[0].arrivalRate', (f, v) => (f.classes[0].arrivalRate = v)],
  ['classes[1].latencyTarget', (f, v) => (f.classes[1].latencyTarget = v)],
  ['accelerators[0].count', (f, v) => (f.accelerators[0].count = v)],
  ['accelerators[0].maxBatchSize', (f, v) => (f.accelerators[0].maxBatchSize = v)],
  ['accelerators[0].serviceTime.vision.linear.perItem', (f, v) => (f.accelerators[0].serviceTime.vision.linear.perItem = v)],
  ['accelerators[0].serviceTime.language.cv', (f, v) => (f.accelerators[0].serviceTime.language.cv = v)],
  ['accelerators[0].power.idleWatts', (f, v) => (f.accelerators[0].power.idleWatts = v)],
  ['objective.powerWeight', (f, v) => (f.objective.powerWeight = v)],
];

export function fleetCases(): Array<{ name: string; fleet: Record<string, unknown>; refusal?: string }> {
  const out: Array<{ name: string; fleet: Record<string, unknown>; refusal?: string }> = [];
  for (const [path, set] of FLEET_FIELDS) {
    for (const v of BAD_VALUES) {
      const f = JSON.parse(JSON.stringify(twoClassFleet(2, 0.5))) as Record<string, any>;
      set(f, v);
      try {
        validateFleet(f);
        out.push({ name: `${path} = ${v}`, fleet: f });
      } catch (e) {
        if (!(e instanceof ScenarioError)) throw e;
        out.push({ name: `${path} = ${v}`, fleet: f, refusal: e.field });
      }
    }
  }
  return out;
}

/** Plan's target fields (request level) at the values its parser refuses, and two targets at once. */
const TARGET_FIELDS = ['latencyTarget', 'powerBudget', 'p95Target', 'p99Target', 'p999Target'];
// Only refused values: a tiny positive percentile target is valid and costs one law per family member.
const BAD_TARGETS = [-1, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];

export function targetCases(): Array<{ name: string; request: Record<string, unknown>; refusal: string }> {
  const scenario = specScenario(1000, 1e-4);
  const out: Array<{ name: string; request: Record<string, unknown> }> = [];
  for (const f of TARGET_FIELDS) for (const v of BAD_TARGETS) out.push({ name: `${f} = ${v}`, request: { scenario, [f]: v } });
  for (const f of ['p95Target', 'p99Target', 'p999Target']) {
    out.push({ name: `${f} = 0`, request: { scenario, [f]: 0 } });
    out.push({ name: `${f} with latencyTarget`, request: { scenario, [f]: 0.02, latencyTarget: 0.01 } });
    out.push({ name: `${f} with objective = speed`, request: { scenario, [f]: 0.02, objective: 'speed' } });
  }
  out.push({ name: 'p95Target with p999Target', request: { scenario, p95Target: 0.02, p999Target: 0.03 } });
  out.push({ name: 'objective = cost with latencyTarget', request: { scenario, latencyTarget: 0.01, objective: 'cost' } });
  return out.map((c) => {
    try {
      parsePlanningRequest('plan', c.request);
    } catch (e) {
      if (e instanceof ScenarioError) return { ...c, refusal: e.field };
      throw e;
    }
    throw new Error(`${c.name}: expected the in-process parser to refuse it`);
  });
}

function withRefusal(name: string, scenario: Record<string, unknown>): { name: string; scenario: Record<string, unknown>; refusal?: string } {
  try {
    validateScenario(scenario);
    return { name, scenario };
  } catch (e) {
    if (!(e instanceof ScenarioError)) throw e;
    return { name, scenario, refusal: e.field };
  }
}

/** A client of the service made from the proto alone, and the calls of the suite. */
export class BadInputClient {
  readonly raw: Raw;
  private readonly bytes: grpc.Client;

  constructor(address: string) {
    const def = grpc.loadPackageDefinition(loadPackageDefinition({ defaults: true })) as unknown as { batchwise: { v1: { BatchingPolicy: grpc.ServiceClientConstructor } } };
    this.raw = new def.batchwise.v1.BatchingPolicy(address, grpc.credentials.createInsecure()) as unknown as Raw;
    this.bytes = new grpc.Client(address, grpc.credentials.createInsecure());
  }

  close(): void {
    this.raw.close();
    this.bytes.close();
  }

  /** The service's methods, by name. */
  get methods(): MethodTable {
    return (this.raw as unknown as { constructor: { service: MethodTable } }).constructor.service;
  }

  async *numeric(): AsyncGenerator<BadCall> {
    for (const c of numericCases()) {
      const refusal = c.refusal ? { refusal: c.refusal } : {};
      yield { group: 'numeric', rpc: 'Evaluate', label: `Evaluate ${c.name}`, ...refusal, ...(await this.unary('Evaluate', { scenario: c.scenario, policy: { spec: 'control-limit:3' } })) };
      yield { group: 'numeric', rpc: 'Simulate', label: `Simulate ${c.name}`, ...refusal, ...(await this.unary('Simulate', { scenario: c.scenario, policy: 'greedy', requests: 2000 })) };
      if (c.refusal) {
        yield { group: 'numeric', rpc: 'Plan', label: `Plan ${c.name}`, ...refusal, ...(await this.unary('Plan', { scenario: c.scenario, latencyTarget: 0.01 })) };
        yield { group: 'numeric', rpc: 'Solve', label: `Solve ${c.name}`, ...refusal, ...(await this.stream('Solve', { scenario: c.scenario })) };
        yield { group: 'numeric', rpc: 'Frontier', label: `Frontier ${c.name}`, ...refusal, ...(await this.unary('Frontier', { scenario: c.scenario })) };
        yield { group: 'numeric', rpc: 'Export', label: `Export ${c.name}`, ...refusal, ...(await this.unary('Export', { scenario: c.scenario, target: 'triton' })) };
      }
    }
  }

  /** Every numeric field of a two-class fleet at the seven bad values, through FleetSimulate and FleetPlan. */
  async *fleet(): AsyncGenerator<BadCall> {
    for (const c of fleetCases()) {
      const fleet = fleetToProto(fleetJsonNames(c.fleet));
      const refusal = c.refusal ? { refusal: c.refusal } : {};
      yield { group: 'fleet', rpc: 'FleetSimulate', label: `FleetSimulate ${c.name}`, ...refusal, ...(await this.unary('FleetSimulate', { fleet, requests: 2000 })) };
      if (c.refusal) yield { group: 'fleet', rpc: 'FleetPlan', label: `FleetPlan ${c.name}`, ...refusal, ...(await this.unary('FleetPlan', { fleet })) };
    }
  }

  /** Plan's target fields at bad values and in pairs; each refused naming the request field. */
  async *targets(): AsyncGenerator<BadCall> {
    for (const c of targetCases()) {
      yield { group: 'targets', rpc: 'Plan', label: `Plan ${c.name}`, refusal: c.refusal, ...(await this.unary('Plan', c.request)) };
    }
  }

  async *strings(): AsyncGenerator<BadCall> {
    const huge = 'x'.repeat(300_000);
    for (const policy of [huge, `table:${huge}`, `triton:delay=${huge}`, `static:${'9'.repeat(5000)}`]) {
      yield { group: 'strings', rpc: 'Evaluate', label: 'Evaluate policy', ...(await this.unary('Evaluate', { scenario: specScenario(1000, 1e-4), policy: { spec: policy } })) };
      yield { group: 'strings', rpc: 'Simulate', label: 'Simulate policy', ...(await this.unary('Simulate', { scenario: specScenario(1000, 1e-4), policy })) };
    }
  }

  async *garbage(): AsyncGenerator<BadCall> {
    const garbage = [Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 1, 2]), Buffer.from([0xff, 0xff, 0xff]), Buffer.from('{"arrivalRate": 1000}')];
    for (const [m, def] of Object.entries(this.methods)) {
      for (const bytes of garbage) {
        const t = performance.now();
        const outcome = await new Promise<Outcome>((resolve) => {
          if (def.responseStream) {
            const s = this.bytes.makeServerStreamRequest(def.path, (b: Buffer) => b, (b: Buffer) => b, bytes, new grpc.Metadata(), { deadline: Date.now() + 30_000 });
            s.on('data', () => undefined);
            s.on('error', (e: grpc.ServiceError) => resolve(outcomeOf(e)));
            s.on('end', () => resolve(outcomeOf(null)));
          } else {
            this.bytes.makeUnaryRequest(def.path, (b: Buffer) => b, (b: Buffer) => b, bytes, new grpc.Metadata(), { deadline: Date.now() + 30_000 }, (e) => resolve(outcomeOf(e)));
          }
        });
        yield { group: 'garbage', rpc: m, label: m, outcome, ms: performance.now() - t };
      }
    }
  }

  private unary(method: string, req: unknown): Promise<{ outcome: Outcome; ms: number }> {
    const t = performance.now();
    return new Promise((resolve) => this.raw[method](req, new grpc.Metadata(), { deadline: Date.now() + 60_000 }, (e) => resolve({ outcome: outcomeOf(e), ms: performance.now() - t })));
  }

  private stream(method: string, req: unknown): Promise<{ outcome: Outcome; ms: number }> {
    const t = performance.now();
    return new Promise((resolve) => {
      const s = this.raw[method](req, new grpc.Metadata(), { deadline: Date.now() + 60_000 }) as grpc.ClientReadableStream<unknown>;
      const done = (e: grpc.ServiceError | null): void => resolve({ outcome: outcomeOf(e), ms: performance.now() - t });
      s.on('data', () => undefined);
      s.on('error', done);
      s.on('end', () => done(null));
    });
  }
}

function outcomeOf(e: grpc.ServiceError | null): Outcome {
  return e ? { code: e.code, details: e.details, field: e.metadata.get('batchwise-field')[0] as string | undefined } : { code: grpc.status.OK, details: '' };
}

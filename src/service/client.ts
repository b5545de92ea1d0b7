import * as grpc from '@grpc/grpc-js';
import { ScenarioError } from '../model/errors.js';
import type { EvaluationResult, SolveResult } from '../solve/result.js';
import type { FleetPlanAnswer } from '../fleet/request.js';
import type { FleetRun } from '../fleet/run.js';
import { fleetPlanFromProto, fleetRunFromProto, fleetToProto, weightsToProto } from './convert/fleet.js';
import { fleetJsonNames, scenarioJsonNames, solveBatchJsonNames } from './convert/jsonNames.js';
import { planAnswerFromProto, type PlanAnswer } from './convert/plan.js';
import { evaluationFromProto, solveResultFromProto } from './convert/result.js';
import { classesResultFromProto } from './convert/classes.js';
import type { ClassesSolveResult } from '../solve/classes/result.js';
import type { ScenarioResult, ScenarioResultMessage, SolveBatchRequest, SolveProgressMessage, SolveRequest, SolveUpdate } from './messages.js';
import { loadPackageDefinition } from './proto.js';
import { codeName } from './rpc/status.js';

export interface ClientTls {
  /** CA that signed the server's certificate (default: the system roots). */
  readonly ca?: Buffer;
  /** Client certificate and key, for servers that require mutual TLS. */
  readonly cert?: Buffer;
  readonly key?: Buffer;
  /** Name to check the server's certificate against, when it differs from the address (e.g. `localhost` for 127.0.0.1). */
  readonly serverName?: string;
}

export interface ClientOptions {
  /** Use TLS (with these files); plaintext when undefined. */
  readonly tls?: ClientTls;
  readonly maxMessageBytes?: number;
  /**
   * 'round_robin' spreads calls over every address the target resolves to (e.g.
   * `dns:///batchwise-headless.default.svc.cluster.local:50051`, a headless Service), instead of
   * gRPC's default of one connection to the first address, which pins a client to one replica.
   */
  readonly loadBalancing?: 'pick_first' | 'round_robin';
  /**
   * A connection of this client's own. grpc-js shares one connection among the clients of a
   * process that dial the same address, and the server's per-connection limits
   * (maxQueuedPerPeer) then apply to all of them together.
   */
  readonly ownConnection?: boolean;
}

export interface CallOptions {
  readonly signal?: AbortSignal;
  /** Absolute deadline (Date or ms since the epoch). */
  readonly deadline?: Date | number;
  /** Sent as x-request-id, so the server's log line can be found. */
  readonly requestId?: string;
}

/** A failed call, with the status name and the field path the server named. */
export class RemoteError extends Error {
  override readonly name = 'RemoteError';
  constructor(
    readonly code: number,
    readonly details: string,
    readonly field?: string,
  ) {
    super(`${codeName(code)}: ${details}`);
  }
  get codeName(): string {
    return codeName(this.code);
  }
}

type RawClient = grpc.Client & {
  Solve(req: SolveRequest, md: grpc.Metadata, opts: grpc.CallOptions): grpc.ClientReadableStream<SolveUpdate>;
  SolveBatch(req: SolveBatchRequest, md: grpc.Metadata, opts: grpc.CallOptions): grpc.ClientReadableStream<ScenarioResultMessage>;
  Evaluate(req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: (e: grpc.ServiceError | null, r?: EvaluationResult) => void): grpc.ClientUnaryCall;
  FleetSimulate(req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: (e: grpc.ServiceError | null, r?: Record<string, unknown>) => void): grpc.ClientUnaryCall;
  Plan(req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: (e: grpc.ServiceError | null, r?: Record<string, unknown>) => void): grpc.ClientUnaryCall;
  FleetPlan(req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: (e: grpc.ServiceError | null, r?: Record<string, unknown>) => void): grpc.ClientUnaryCall;
};

/**
 * A typed client of batchwise.v1.BatchingPolicy over grpc-js. Results come back as the
 * core's own types (SolveResult, EvaluationResult), so a remote solve compares directly
 * with an in-process one. Invalid input surfaces as ScenarioError naming the field.
 */
export class BatchwiseClient {
  readonly raw: RawClient;

  constructor(address: string, opts: ClientOptions = {}) {
    const def = grpc.loadPackageDefinition(loadPackageDefinition({ defaults: true })) as unknown as {
      batchwise: { v1: { BatchingPolicy: grpc.ServiceClientConstructor } };
    };
    const creds = opts.tls ? grpc.credentials.createSsl(opts.tls.ca ?? null, opts.tls.key ?? null, opts.tls.cert ?? null) : grpc.credentials.createInsecure();
    const size = opts.maxMessageBytes ?? 64 * 1024 * 1024;
    this.raw = new def.batchwise.v1.BatchingPolicy(address, creds, {
      'grpc.max_receive_message_length': size,
      'grpc.max_send_message_length': size,
      ...(opts.ownConnection ? { 'grpc.use_local_subchannel_pool': 1 } : {}),
      ...(opts.loadBalancing ? { 'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ [opts.loadBalancing]: {} }] }) } : {}),
      ...(opts.tls?.serverName ? { 'grpc.ssl_target_name_override': opts.tls.serverName, 'grpc.default_authority': opts.tls.serverName } : {}),
    }) as unknown as RawClient;
  }

  close(): void {
    this.raw.close();
  }

  /**
   * Solve with streamed progress; resolves with the final update's result. `onSolved` gets the
   * certified result when the server sends it ahead of its percentiles (SolveUpdate.solved).
   */
  async solve(
    scenario: unknown,
    opts: CallOptions & {
      onProgress?: (p: SolveProgressMessage) => void;
      onSolved?: (r: SolveResult) => void;
      progressIntervalMs?: number;
      skipPercentiles?: boolean;
    } = {},
  ): Promise<{ result: SolveResult; cached: boolean; warmStarted: boolean; progressUpdates: number }> {
    let progressUpdates = 0;
    for await (const u of this.solveUpdates({ scenario: scenarioJsonNames(scenario), progressIntervalMs: opts.progressIntervalMs ?? 0, skipPercentiles: opts.skipPercentiles === true }, opts)) {
      if (!u.done) {
        if (u.solved) opts.onSolved?.(solveResultFromProto(u.solved));
        else progressUpdates++;
        if (u.progress) opts.onProgress?.(u.progress);
        continue;
      }
      return { result: solveResultFromProto(u.result), cached: u.cached, warmStarted: u.warmStarted, progressUpdates };
    }
    throw new RemoteError(grpc.status.INTERNAL, 'the Solve stream ended without a final update');
  }

  /** Solve of a scenario with `classes` (docs/model.md §10); resolves with the final update's classes result. */
  async solveClasses(
    scenario: unknown,
    opts: CallOptions & { onProgress?: (p: SolveProgressMessage) => void; progressIntervalMs?: number } = {},
  ): Promise<{ result: ClassesSolveResult; cached: boolean; warmStarted: boolean; progressUpdates: number }> {
    let progressUpdates = 0;
    for await (const u of this.solveUpdates({ scenario: scenarioJsonNames(scenario), progressIntervalMs: opts.progressIntervalMs ?? 0 }, opts)) {
      if (!u.done) {
        progressUpdates++;
        if (u.progress) opts.onProgress?.(u.progress);
        continue;
      }
      if (!u.classesResult) throw new RemoteError(grpc.status.INTERNAL, 'the Solve stream ended without a classes result (is the scenario multi-class?)');
      return { result: classesResultFromProto(u.classesResult), cached: u.cached, warmStarted: u.warmStarted, progressUpdates };
    }
    throw new RemoteError(grpc.status.INTERNAL, 'the Solve stream ended without a final update');
  }

  /** The raw Solve stream (progress updates, then one update with done = true). */
  solveUpdates(request: SolveRequest, opts: CallOptions = {}): AsyncGenerator<SolveUpdate, void, undefined> {
    return this.stream((md, o) => this.raw.Solve(request, md, o), opts);
  }

  /**
   * SolveBatch: one ScenarioResult per scenario, in completion order (results converted to core
   * types: `result` a SolveResult, `classesResult` for a scenario with classes a ClassesSolveResult).
   */
  async *solveBatch(request: SolveBatchRequest, opts: CallOptions = {}): AsyncGenerator<ScenarioResult, void, undefined> {
    for await (const r of this.stream((md, o) => this.raw.SolveBatch(solveBatchJsonNames(request), md, o), opts)) {
      // Members of the outcome oneof that are not set may decode as null: leave them out.
      const { result, classesResult, error, ...rest } = r;
      if (result) yield { ...rest, result: solveResultFromProto(result) };
      else if (classesResult) yield { ...rest, classesResult: classesResultFromProto(classesResult) };
      else yield { ...rest, ...(error ? { error } : {}) };
    }
  }

  /** Evaluate a policy: a spec string (greedy, static:b, control-limit:M, table:…) or a table of actions. */
  evaluate(scenario: unknown, policy: string | readonly number[], opts: CallOptions & { skipPercentiles?: boolean } = {}): Promise<EvaluationResult> {
    const request = {
      scenario: scenarioJsonNames(scenario),
      policy: typeof policy === 'string' ? { spec: policy } : { table: { actions: [...policy] } },
      skipPercentiles: opts.skipPercentiles === true,
    };
    return new Promise((resolve, reject) => {
      const call = this.raw.Evaluate(request, metadata(opts), callOptions(opts), (e, r) =>
        e ? reject(fromGrpcError(e)) : resolve(evaluationFromProto(r)),
      );
      opts.signal?.addEventListener('abort', () => call.cancel(), { once: true });
    });
  }

  /**
   * FleetSimulate: `request` is { fleet (the fleet file's JSON), router, requests, seed,
   * warmupRequests, weights }; the result as the library's FleetRun (simulation, plan).
   */
  fleetSimulate(request: Record<string, unknown>, opts: CallOptions = {}): Promise<FleetRun> {
    return this.unary((cb) => this.raw.FleetSimulate({ ...request, fleet: fleetToProto(fleetJsonNames(request.fleet)), weights: weightsToProto(request.weights) }, metadata(opts), callOptions(opts), cb), opts, fleetRunFromProto);
  }

  /**
   * Plan: `request` is { latencyTarget | powerBudget | p95Target | p99Target | p999Target, objective }
   * (JSON names; the scenario goes separately). The answer as the library's PlanResult or PercentilePlanResult.
   */
  plan(scenario: unknown, request: Record<string, unknown>, opts: CallOptions = {}): Promise<PlanAnswer> {
    return this.unary((cb) => this.raw.Plan({ ...request, scenario: scenarioJsonNames(scenario) }, metadata(opts), callOptions(opts), cb), opts, planAnswerFromProto);
  }

  /** FleetPlan: `request` is { fleet, least, kind, maxAccelerators }. */
  fleetPlan(request: Record<string, unknown>, opts: CallOptions = {}): Promise<FleetPlanAnswer> {
    return this.unary((cb) => this.raw.FleetPlan({ ...request, fleet: fleetToProto(fleetJsonNames(request.fleet)) }, metadata(opts), callOptions(opts), cb), opts, fleetPlanFromProto);
  }

  private unary<M, T>(open: (cb: (e: grpc.ServiceError | null, r?: M) => void) => grpc.ClientUnaryCall, opts: CallOptions, convert: (m: M) => T): Promise<T> {
    return new Promise((resolve, reject) => {
      const call = open((e, r) => (e ? reject(fromGrpcError(e)) : resolve(convert(r as M))));
      opts.signal?.addEventListener('abort', () => call.cancel(), { once: true });
    });
  }

  private async *stream<T>(open: (md: grpc.Metadata, o: grpc.CallOptions) => grpc.ClientReadableStream<T>, opts: CallOptions): AsyncGenerator<T, void, undefined> {
    const call = open(metadata(opts), callOptions(opts));
    const cancel = (): void => call.cancel();
    opts.signal?.addEventListener('abort', cancel, { once: true });
    try {
      for await (const item of call as AsyncIterable<T>) yield item;
    } catch (e) {
      throw fromGrpcError(e);
    } finally {
      opts.signal?.removeEventListener('abort', cancel);
      call.cancel(); // no-op when the stream already ended; stops the server when we leave early
    }
  }
}

function metadata(opts: CallOptions): grpc.Metadata {
  const md = new grpc.Metadata();
  if (opts.requestId) md.set('x-request-id', opts.requestId);
  return md;
}

function callOptions(opts: CallOptions): grpc.CallOptions {
  return opts.deadline !== undefined ? { deadline: opts.deadline } : {};
}

/** grpc-js error → ScenarioError for INVALID_ARGUMENT (the CLI prints it as bad input), RemoteError otherwise. */
export function fromGrpcError(e: unknown): Error {
  if (!isGrpcError(e)) return e instanceof Error ? e : new Error(String(e));
  const field = e.metadata?.get('batchwise-field')[0];
  const f = typeof field === 'string' ? field : undefined;
  if (e.code === grpc.status.INVALID_ARGUMENT && f) {
    const reason = e.details.startsWith(`${f}: `) ? e.details.slice(f.length + 2) : e.details;
    return new ScenarioError(f, reason);
  }
  return new RemoteError(e.code, e.details, f);
}

function isGrpcError(e: unknown): e is grpc.ServiceError {
  return e instanceof Error && typeof (e as Partial<grpc.ServiceError>).code === 'number' && 'details' in e;
}

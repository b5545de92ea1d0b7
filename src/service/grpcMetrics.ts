import { Counter, Histogram, type Registry } from 'prom-client';
import type { CallObserver, CallEnd, GrpcType } from './rpc/adapter.js';

/**
 * The standard gRPC server metrics, named and labelled as go-grpc-prometheus (grpc-ecosystem)
 * defines them, so the usual dashboards and alerts work unchanged:
 *   grpc_server_started_total{grpc_type,grpc_service,grpc_method}
 *   grpc_server_handled_total{grpc_type,grpc_service,grpc_method,grpc_code}
 *   grpc_server_msg_received_total / grpc_server_msg_sent_total{grpc_type,grpc_service,grpc_method}
 *   grpc_server_handling_seconds{grpc_type,grpc_service,grpc_method} (histogram, Prometheus' default buckets)
 * grpc_type is unary or server_stream; grpc_code is grpc-go's name of the status (OK, Canceled,
 * DeadlineExceeded, Unavailable, …), the status the call really ended with.
 */
export class GrpcServerMetrics implements CallObserver {
  private readonly started: Counter<'grpc_type' | 'grpc_service' | 'grpc_method'>;
  private readonly handled: Counter<'grpc_type' | 'grpc_service' | 'grpc_method' | 'grpc_code'>;
  private readonly received: Counter<'grpc_type' | 'grpc_service' | 'grpc_method'>;
  private readonly sent: Counter<'grpc_type' | 'grpc_service' | 'grpc_method'>;
  private readonly seconds: Histogram<'grpc_type' | 'grpc_service' | 'grpc_method'>;

  constructor(
    registry: Registry,
    private readonly service: string,
  ) {
    const registers = [registry];
    const labelNames = ['grpc_type', 'grpc_service', 'grpc_method'] as const;
    this.started = new Counter({ name: 'grpc_server_started_total', help: 'Total number of RPCs started on the server.', labelNames, registers });
    this.handled = new Counter({
      name: 'grpc_server_handled_total',
      help: 'Total number of RPCs completed on the server, regardless of success or failure.',
      labelNames: [...labelNames, 'grpc_code'] as const,
      registers,
    });
    this.received = new Counter({ name: 'grpc_server_msg_received_total', help: 'Total number of RPC stream messages received on the server.', labelNames, registers });
    this.sent = new Counter({ name: 'grpc_server_msg_sent_total', help: 'Total number of gRPC stream messages sent by the server.', labelNames, registers });
    this.seconds = new Histogram({
      name: 'grpc_server_handling_seconds',
      help: 'Histogram of response latency (seconds) of gRPC that had been application-level handled by the server.',
      labelNames,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
  }

  /** Creates every method's series at zero (go-grpc-prometheus' InitializeMetrics), so rates exist before the first call. */
  initialize(methods: ReadonlyArray<{ name: string; type: GrpcType }>): void {
    for (const m of methods) {
      const labels = this.labels(m.name, m.type);
      this.started.inc(labels, 0);
      this.received.inc(labels, 0);
      this.sent.inc(labels, 0);
      this.seconds.zero(labels);
      for (const code of GO_CODE_NAMES) this.handled.inc({ ...labels, grpc_code: code }, 0);
    }
  }

  onCallStart(rpc: string, type: GrpcType): void {
    const labels = this.labels(rpc, type);
    this.started.inc(labels);
    this.received.inc(labels); // the one request message of unary and server-streaming calls
  }

  onMessageSent(rpc: string, type: GrpcType): void {
    this.sent.inc(this.labels(rpc, type));
  }

  onCallEnd(end: CallEnd): void {
    const labels = this.labels(end.rpc, end.type);
    this.handled.inc({ ...labels, grpc_code: goCodeName(end.code) });
    this.seconds.observe(labels, end.seconds);
  }

  private labels(method: string, type: GrpcType): { grpc_type: GrpcType; grpc_service: string; grpc_method: string } {
    return { grpc_type: type, grpc_service: this.service, grpc_method: method };
  }
}

/** grpc-go's `codes.Code.String()`, by code number: the grpc_code label go-grpc-prometheus writes. */
const GO_CODE_NAMES = [
  'OK',
  'Canceled',
  'Unknown',
  'InvalidArgument',
  'DeadlineExceeded',
  'NotFound',
  'AlreadyExists',
  'PermissionDenied',
  'ResourceExhausted',
  'FailedPrecondition',
  'Aborted',
  'OutOfRange',
  'Unimplemented',
  'Internal',
  'Unavailable',
  'DataLoss',
  'Unauthenticated',
] as const;

export function goCodeName(code: number): string {
  return GO_CODE_NAMES[code] ?? `Code(${code})`;
}

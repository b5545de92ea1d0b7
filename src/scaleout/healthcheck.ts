import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { protoPath } from 'grpc-health-check';
import { pathToFileURL } from 'node:url';

type CheckFn = (req: { service: string }, opts: grpc.CallOptions, cb: (e: grpc.ServiceError | null, r?: { status: string }) => void) => void;

/**
 * The container HEALTHCHECK (`node dist/src/scaleout/healthcheck.js [HOST:PORT]`): asks the
 * standard gRPC health service about batchwise.v1.BatchingPolicy and resolves its status
 * (`SERVING`, `NOT_SERVING`, …). Kubernetes uses the kubelet's own gRPC probe instead.
 */
export async function checkHealth(address: string, timeoutMs = 3000): Promise<string> {
  const def = grpc.loadPackageDefinition(protoLoader.loadSync(protoPath, { enums: String })) as unknown as {
    grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } };
  };
  const client = new def.grpc.health.v1.Health(address, grpc.credentials.createInsecure());
  const check = (client as unknown as { Check: CheckFn }).Check.bind(client);
  try {
    return await new Promise<string>((resolve, reject) =>
      check({ service: 'batchwise.v1.BatchingPolicy' }, { deadline: Date.now() + timeoutMs }, (e, r) => (e ? reject(e) : resolve(r?.status ?? 'UNKNOWN'))),
    );
  } finally {
    client.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  checkHealth(process.argv[2] ?? '127.0.0.1:50051').then(
    (s) => {
      process.stdout.write(`${s}\n`);
      process.exit(s === 'SERVING' ? 0 : 1);
    },
    (e: unknown) => {
      process.stderr.write(`unhealthy: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
}

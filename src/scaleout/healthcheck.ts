import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { protoPath } from 'grpc-health-check';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

type CheckFn = (req: { service: string }, opts: grpc.CallOptions, cb: (e: grpc.ServiceError | null, r?: { status: string }) => void) => void;

/**
 * Where the server in this container listens, from its own command line and environment (as
 * /proc/1/cmdline and /proc/1/environ give them: NUL-separated): `--port N` / `--port=N`, else
 * BATCHWISE_PORT, else 50051, and `--host` / BATCHWISE_HOST, with a wildcard host read as
 * loopback. So the HEALTHCHECK follows `serve --port 6000` without being rewritten.
 */
export function serveAddress(cmdline: string, environ: string): string {
  const args = cmdline.split('\0').filter(Boolean);
  const env = new Map(
    environ
      .split('\0')
      .filter((e) => e.includes('='))
      .map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)] as [string, string]),
  );
  const flag = (name: string): string | undefined => {
    for (let i = 0; i < args.length; i++) {
      if (args[i] === name && i + 1 < args.length) return args[i + 1];
      if (args[i].startsWith(`${name}=`)) return args[i].slice(name.length + 1);
    }
    return undefined;
  };
  const port = flag('--port') ?? env.get('BATCHWISE_PORT') ?? '50051';
  const host = flag('--host') ?? env.get('BATCHWISE_HOST') ?? '127.0.0.1';
  const reach = host === '0.0.0.0' || host === '::' || host === '[::]' ? '127.0.0.1' : host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `${reach}:${port}`;
}

/** The address of the container's server (PID 1), or the default where /proc cannot be read. */
function containerServeAddress(): string {
  try {
    return serveAddress(readFileSync('/proc/1/cmdline', 'latin1'), readFileSync('/proc/1/environ', 'latin1'));
  } catch {
    return '127.0.0.1:50051';
  }
}

/**
 * The container HEALTHCHECK (`node dist/src/scaleout/healthcheck.js [HOST:PORT]`; without an
 * address, the one the container's `serve` listens on, see serveAddress): asks the
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
  checkHealth(process.argv[2] ?? containerServeAddress()).then(
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

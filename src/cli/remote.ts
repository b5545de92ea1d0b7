import { readFileSync } from 'node:fs';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { BatchwiseClient, ClientTls } from '../service/client.js';
import type { PlanAnswer } from '../service/convert/plan.js';

/** Options of every command that can talk to a server. */
export interface RemoteOptions {
  server?: string;
  tls?: boolean;
  tlsCa?: string;
  tlsCert?: string;
  tlsKey?: string;
  tlsServerName?: string;
}

export function addRemoteOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--server <host:port>', 'send the work to a batchwise server instead of solving here'))
    .addOption(new Option('--tls', 'connect with TLS (system roots unless --tls-ca)'))
    .addOption(new Option('--tls-ca <file>', "PEM of the CA that signed the server's certificate (implies --tls)"))
    .addOption(new Option('--tls-cert <file>', 'client certificate PEM, for servers that require mutual TLS'))
    .addOption(new Option('--tls-key <file>', 'client key PEM'))
    .addOption(new Option('--tls-server-name <name>', "name to check the server's certificate against (implies --tls)"));
}

export function readPem(path: string, flag: string): Buffer {
  try {
    return readFileSync(path);
  } catch (e) {
    throw new InvalidArgumentError(`${flag} ${path}: cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
}

/** host:port, [v6]:port. */
export function checkAddress(address: string): string {
  if (!/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/.test(address)) {
    throw new InvalidArgumentError(`--server ${JSON.stringify(address)}: expected HOST:PORT, e.g. 127.0.0.1:50051`);
  }
  return address;
}

/** A client for --server; the gRPC stack is loaded only here, so local commands never pay for it. */
export async function connect(o: RemoteOptions & { server: string }): Promise<BatchwiseClient> {
  let tls: ClientTls | undefined;
  if (o.tls || o.tlsCa || o.tlsCert || o.tlsKey || o.tlsServerName) {
    if ((o.tlsCert === undefined) !== (o.tlsKey === undefined)) throw new InvalidArgumentError('--tls-cert and --tls-key go together');
    tls = {
      ...(o.tlsCa ? { ca: readPem(o.tlsCa, '--tls-ca') } : {}),
      ...(o.tlsCert ? { cert: readPem(o.tlsCert, '--tls-cert') } : {}),
      ...(o.tlsKey ? { key: readPem(o.tlsKey, '--tls-key') } : {}),
      ...(o.tlsServerName ? { serverName: o.tlsServerName } : {}),
    };
  }
  const address = checkAddress(o.server);
  const { BatchwiseClient: Client } = await import('../service/client.js');
  return new Client(address, { tls });
}

/** One remote call with Ctrl-C cancelling it (the server stops the job), the client closed after. */
export async function withClient<T>(o: RemoteOptions & { server: string }, run: (c: BatchwiseClient, signal: AbortSignal) => Promise<T>): Promise<T> {
  const client = await connect(o);
  const sig = cancelOnSigint();
  try {
    return await run(client, sig.signal);
  } finally {
    sig.dispose();
    client.close();
  }
}

/** Ctrl-C cancels the remote call (the server stops the solve) instead of killing the process mid-stream. */
export function cancelOnSigint(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSig = (): void => controller.abort();
  process.once('SIGINT', onSig);
  return { signal: controller.signal, dispose: () => process.removeListener('SIGINT', onSig) };
}

/** `solve --server`: streams progress to stderr (on a terminal) and returns the server's result. */
export async function solveRemote(o: RemoteOptions & { server: string }, scenario: unknown, showProgress: boolean, skipPercentiles = false) {
  return withClient(o, (client, signal) =>
    client.solve(scenario, {
      signal,
      skipPercentiles,
      onProgress: showProgress
        ? (p) => {
            const gap = (p.averageCostUpper - p.averageCostLower) / Math.abs(p.averageCostLower);
            process.stderr.write(`\r  S = ${p.maxQueue}  iteration ${p.iteration}  control limit ${p.controlLimit}  relative gap ${gap.toExponential(2)}   `);
          }
        : undefined,
    }),
  );
}

/** `solve --server` of a scenario with classes: progress (bounds and the box) to stderr on a terminal. */
export async function solveClassesRemote(o: RemoteOptions & { server: string }, scenario: unknown, showProgress: boolean) {
  return withClient(o, (client, signal) =>
    client.solveClasses(scenario, {
      signal,
      onProgress: showProgress
        ? (p) => {
            const gap = (p.averageCostUpper - p.averageCostLower) / Math.abs(p.averageCostLower);
            process.stderr.write(`\r  S = (${(p.classMaxQueue ?? []).join(', ')})  iteration ${p.iteration}  relative gap ${gap.toExponential(2)}   `);
          }
        : undefined,
    }),
  );
}

/** `evaluate --server`. */
export async function evaluateRemote(o: RemoteOptions & { server: string }, scenario: unknown, policy: string, skipPercentiles = false) {
  return withClient(o, (client, signal) => client.evaluate(scenario, policy, { signal, skipPercentiles }));
}

/** `plan --server`: one Plan call; `request` holds the target fields (JSON names) and objective. */
export async function planRemote(o: RemoteOptions & { server: string }, scenario: unknown, request: Record<string, unknown>): Promise<PlanAnswer> {
  return withClient(o, (client, signal) => client.plan(scenario, request, { signal }));
}

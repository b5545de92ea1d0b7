import { isIP } from 'node:net';
import * as grpc from '@grpc/grpc-js';

/** PEM contents (not paths) for the server's TLS. */
export interface ServerTls {
  readonly cert: Buffer;
  readonly key: Buffer;
  /** When given, clients must present a certificate signed by this CA (mutual TLS). */
  readonly clientCa?: Buffer;
}

/** A server setting that cannot work (e.g. plaintext on a public address). */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

/**
 * TLS when configured, mutual TLS when a client CA is given; plaintext only on a loopback
 * address, or anywhere when `insecure` says so explicitly.
 */
export function serverCredentials(host: string, tls: ServerTls | undefined, insecure: boolean): grpc.ServerCredentials {
  if (tls) {
    return grpc.ServerCredentials.createSsl(tls.clientCa ?? null, [{ private_key: tls.key, cert_chain: tls.cert }], tls.clientCa !== undefined);
  }
  if (!isLoopback(host) && !insecure) {
    throw new ConfigError(
      `refusing plaintext gRPC on ${host}: not a loopback address. Give --tls-cert and --tls-key, or --insecure to allow plaintext`,
    );
  }
  return grpc.ServerCredentials.createInsecure();
}

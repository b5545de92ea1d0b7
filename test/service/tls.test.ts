import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RemoteError } from '../../src/service/client.js';
import { BatchwiseServer } from '../../src/service/server.js';
import { ConfigError } from '../../src/service/tls.js';
import { evaluateScenarioPolicy } from '../../src/solve/evaluateScenario.js';
import { specScenario } from '../helpers/scenarios.js';
import { startHarness, type Harness } from './support/harness.js';

/**
 * Certificates made here, never checked in: a self-signed server certificate for
 * 127.0.0.1 (which also serves as the CA), and a client certificate signed by it.
 */
async function makeCerts() {
  const pems = await generate([{ name: 'commonName', value: 'batchwise-test' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true, clientAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }, { type: 2, value: 'localhost' }] },
    ],
    clientCertificate: { cn: 'batchwise-client', keyType: 'ec' },
  });
  return {
    cert: Buffer.from(pems.cert),
    key: Buffer.from(pems.private),
    clientCert: Buffer.from(pems.clientcert!),
    clientKey: Buffer.from(pems.clientprivate!),
  };
}

const scenario = specScenario(1000, 1e-4);
const deadline = () => Date.now() + 10_000;

async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'OK';
  } catch (e) {
    return e instanceof RemoteError ? e.codeName : String(e);
  }
}

describe('TLS and mutual TLS', () => {
  let certs: Awaited<ReturnType<typeof makeCerts>>;
  let tls: Harness;
  let mtls: Harness;
  beforeAll(async () => {
    certs = await makeCerts();
    tls = await startHarness({ limits: { maxConcurrentSolves: 1 }, tls: { cert: certs.cert, key: certs.key } });
    mtls = await startHarness({ limits: { maxConcurrentSolves: 1 }, tls: { cert: certs.cert, key: certs.key, clientCa: certs.cert } });
  });
  afterAll(async () => {
    await tls?.close();
    await mtls?.close();
  });

  it('a TLS server refuses a plaintext client and serves a TLS client that trusts its CA', async () => {
    expect(await outcome(tls.client().evaluate(scenario, 'greedy', { deadline: deadline() }))).toBe('UNAVAILABLE');
    const r = await tls.client({ tls: { ca: certs.cert, serverName: 'localhost' } }).evaluate(scenario, 'greedy', { deadline: deadline() });
    expect(r).toEqual(evaluateScenarioPolicy(scenario, 'greedy'));
  });

  it('a mutual-TLS server refuses a client without a certificate and serves one with a certificate from its CA', async () => {
    expect(await outcome(mtls.client({ tls: { ca: certs.cert, serverName: 'localhost' } }).evaluate(scenario, 'greedy', { deadline: deadline() }))).toBe('UNAVAILABLE');
    expect(await outcome(mtls.client().evaluate(scenario, 'greedy', { deadline: deadline() }))).toBe('UNAVAILABLE');
    const ok = mtls.client({ tls: { ca: certs.cert, cert: certs.clientCert, key: certs.clientKey, serverName: 'localhost' } });
    expect(await ok.evaluate(scenario, 'greedy', { deadline: deadline() })).toEqual(evaluateScenarioPolicy(scenario, 'greedy'));
  });

  it('plaintext is refused on a non-loopback address unless insecure is set', async () => {
    await expect(BatchwiseServer.start({ host: '0.0.0.0', port: 0 })).rejects.toBeInstanceOf(ConfigError);
    await expect(BatchwiseServer.start({ host: '0.0.0.0', port: 0 })).rejects.toThrow(/--insecure/);
  });
});

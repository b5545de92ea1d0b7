import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchwiseClient } from '../../src/service/client.js';
import { specScenario } from '../helpers/scenarios.js';
import { startHarness, type Harness } from './support/harness.js';

/**
 * A client pointed at several replicas (what a headless Service's DNS name resolves to; here the
 * `ipv4:` target lists both) spreads its calls with round_robin, and stays on one replica with
 * gRPC's default pick_first: the behaviour deploy/kubernetes/server.yaml documents.
 */
describe('client-side load balancing over two replicas', () => {
  let a: Harness;
  let b: Harness;
  beforeAll(async () => {
    a = await startHarness();
    b = await startHarness();
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  const calls = (h: Harness): number => h.lines.filter((l) => l.rpc === 'Evaluate').length;
  const target = (): string => `ipv4:${[a, b].map((h) => h.server.address).join(',')}`;

  async function spread(loadBalancing?: 'round_robin'): Promise<[number, number]> {
    const before: [number, number] = [calls(a), calls(b)];
    const client = new BatchwiseClient(target(), loadBalancing ? { loadBalancing } : {});
    try {
      for (let i = 0; i < 8; i++) await client.evaluate(specScenario(1000 + i, 1e-4), 'control-limit:3');
    } finally {
      client.close();
    }
    return [calls(a) - before[0], calls(b) - before[1]];
  }

  it('round_robin reaches both replicas; pick_first keeps to one', async () => {
    const rr = await spread('round_robin');
    expect(rr[0] + rr[1]).toBe(8);
    expect(rr[0]).toBeGreaterThan(0);
    expect(rr[1]).toBeGreaterThan(0);
    const first = await spread();
    expect(first[0] + first[1]).toBe(8);
    expect(Math.min(...first)).toBe(0);
  });
});

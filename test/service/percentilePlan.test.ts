import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScenarioError } from '../../src/model/errors.js';
import { validateScenario } from '../../src/model/validate.js';
import { planPercentileTarget, PercentileInfeasibleError } from '../../src/plan/percentileTarget.js';
import { RemoteError, type BatchwiseClient } from '../../src/service/client.js';
import { runCli } from '../helpers/cli.js';
import { SPEC_FIT, specScenario } from '../helpers/scenarios.js';
import { startHarness, type Harness } from './support/harness.js';

/**
 * Plan with a percentile target through a real server: the answer equals the library's
 * planPercentileTarget on the same scenario (B = 8 deterministic, as in
 * test/plan/percentileTarget.test.ts), an unmet target is INVALID_ARGUMENT naming the least
 * achievable percentile, and bad target fields are INVALID_ARGUMENT on the field.
 */
type Unary = (req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: (e: grpc.ServiceError | null, r?: unknown) => void) => grpc.ClientUnaryCall;

const raw = specScenario(1500, 1e-4, { maxBatchSize: 8 });
const sc = validateScenario(raw);

let h: Harness;
let client: BatchwiseClient;

/** The Plan RPC's status for a request (raw grpc-js, so any field combination goes on the wire). */
function planStatus(request: unknown): Promise<{ code: number; details: string; field?: string }> {
  const plan = (client.raw as unknown as Record<string, Unary>).Plan;
  return new Promise((resolve) =>
    plan.call(client.raw, request, new grpc.Metadata(), {}, (e) =>
      resolve(e ? { code: e.code, details: e.details, field: e.metadata.get('batchwise-field')[0] as string | undefined } : { code: grpc.status.OK, details: '' }),
    ),
  );
}

beforeAll(async () => {
  h = await startHarness({ limits: { maxConcurrentSolves: 1 } });
  client = h.client();
}, 60_000);

afterAll(async () => {
  await h?.close();
});

describe('Plan with a percentile target', () => {
  it('answers what planPercentileTarget answers (objective cost, p99)', async () => {
    // 8 ms: the least-cost member misses it, so the search passes over at least one member.
    const T = 8e-3;
    const local = await planPercentileTarget(sc, { level: 'p99', seconds: T }, { objective: 'cost', targetField: 'p99Target' });
    const remote = await client.plan(raw, { p99Target: T, objective: 'cost' });
    expect(remote.kind).toBe('percentile');
    if (remote.kind !== 'percentile') return;
    const r = remote.result;
    expect(r.target).toEqual(local.target);
    expect(r.objective).toBe('cost');
    expect(r.family).toEqual(local.family);
    expect([r.examined, r.ruledOut]).toEqual([local.examined, local.ruledOut]);
    expect(r.examined + r.ruledOut).toBeGreaterThan(1);
    const { policy: rp, ...rFigures } = r.policy;
    const { policy: lp, ...lFigures } = local.policy;
    expect(rFigures).toEqual(lFigures);
    expect(rp.actions).toEqual([...lp.actions]);
    expect(rp.controlLimit).toBe(lp.controlLimit);
    expect(r.policy.percentile).toBeLessThanOrEqual(T);
  });

  it('carries the members whose law was out of reach (undecided), as the library lists them', async () => {
    // Gamma cv 0.7, B = 4, λ = 400 /s: the caps 1 and 2 are past the transform route's guard (test/plan/percentileUndecided.test.ts).
    const gamma = specScenario(400, 1e-4, { maxBatchSize: 4, serviceTime: { linear: { ...SPEC_FIT }, distribution: 'GAMMA', cv: 0.7 } });
    const local = await planPercentileTarget(validateScenario(gamma), { level: 'p99', seconds: 9.9e-3 });
    expect(local.undecided.length).toBeGreaterThan(0);
    const remote = await client.plan(gamma, { p99Target: 9.9e-3 });
    expect(remote.kind).toBe('percentile');
    if (remote.kind !== 'percentile') return;
    expect(remote.result.undecided).toEqual(local.undecided);
    expect(remote.result.policy.name).toBe(local.policy.name);
  });

  it('leaves the mean-target fields unset and says status = met', async () => {
    const plan = (client.raw as unknown as Record<string, Unary>).Plan;
    const m = await new Promise<Record<string, unknown>>((resolve, reject) =>
      plan.call(client.raw, { scenario: raw, p95Target: 8e-3 }, new grpc.Metadata(), {}, (e, r) => (e ? reject(e) : resolve(r as Record<string, unknown>))),
    );
    expect(m.status).toBe('met');
    expect(m.target).toMatchObject({ kind: 'p95', seconds: 8e-3, probability: 0.95 });
    expect(m.optimum).toBeNull();
    expect(m.deterministic).toBeNull();
    expect((m.percentile as { objective: string }).objective).toBe('power');
  });

  it('an unmet target is INVALID_ARGUMENT on its field, naming the least achievable percentile', async () => {
    const T = 4e-3;
    const local = await planPercentileTarget(sc, { level: 'p99', seconds: T }, { targetField: 'p99Target' }).catch((e: unknown) => e);
    expect(local).toBeInstanceOf(PercentileInfeasibleError);
    const s = await planStatus({ scenario: raw, p99Target: T });
    expect(s.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(s.field).toBe('p99Target');
    expect(s.details).toBe((local as PercentileInfeasibleError).message);
    expect(s.details).toMatch(/^p99Target: 4\.0000 ms cannot be met within the family .*: the least achievable p99 is \d+\.\d{4} ms/);
    // The typed client surfaces it as the library's ScenarioError.
    const e = await client.plan(raw, { p99Target: T }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ScenarioError);
    expect(e).not.toBeInstanceOf(RemoteError);
    expect((e as ScenarioError).field).toBe('p99Target');
  });

  it('bad target fields are INVALID_ARGUMENT naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ p99Target: -0.01 }, 'p99Target', /must be a positive duration/],
      [{ p99Target: 0 }, 'p99Target', /must be a positive duration/],
      [{ p95Target: Number.NaN }, 'p95Target', /must be a positive duration/],
      [{ p999Target: Number.POSITIVE_INFINITY }, 'p999Target', /must be a positive duration/],
      [{ p99Target: 0.01, p95Target: 0.01 }, 'p95Target', /give exactly one of latencyTarget/],
      [{ p99Target: 0.01, latencyTarget: 0.005 }, 'p99Target', /give exactly one of latencyTarget/],
      [{ p99Target: 0.01, objective: 'speed' }, 'objective', /must be power or cost/],
      [{ latencyTarget: 0.005, objective: 'cost' }, 'objective', /applies to percentile targets/],
    ];
    for (const [fields, field, msg] of cases) {
      const s = await planStatus({ scenario: raw, ...fields });
      expect(s.code, JSON.stringify(fields)).toBe(grpc.status.INVALID_ARGUMENT);
      expect(s.field, JSON.stringify(fields)).toBe(field);
      expect(s.details).toMatch(new RegExp(`^${field}: ${msg.source}`));
    }
  });
});

describe('Plan with a percentile target under MMPP arrivals', () => {
  it('deterministic service is INVALID_ARGUMENT on scenario.serviceTime.distribution, saying why', async () => {
    const bursty = { ...raw, arrivalRate: 0, arrivalProcess: { mmpp: { rates: [750, 3000], generator: [-20, 20, 40, -40] } } };
    const s = await planStatus({ scenario: bursty, p99Target: 0.02 });
    expect(s.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(s.field).toBe('scenario.serviceTime.distribution');
    expect(s.details).toMatch(/^scenario\.serviceTime\.distribution: percentile targets under MMPP arrivals \(arrivalProcess\) need the exact response-time law, implemented there for exponential service only .*got DETERMINISTIC/);
  });
});

describe('batchwise plan --server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'batchwise-plan-server-'));
  const file = join(dir, 'light.json');
  writeFileSync(file, JSON.stringify(raw));

  it('prints what a local plan prints, for a percentile target and a mean target', async () => {
    for (const args of [
      ['--p99-target', '8ms', '--objective', 'cost'],
      ['--p95-target', '8ms'],
      ['--latency-target', '5ms'],
    ]) {
      const local = await runCli('plan', file, ...args);
      const remote = await runCli('plan', file, ...args, '--server', h.server.address);
      expect(local.code, args.join(' ')).toBe(0);
      expect(remote.code, `${args.join(' ')}: ${remote.err}`).toBe(0);
      expect(remote.out).toBe(local.out);
      const localJson = await runCli('plan', file, ...args, '--json');
      const remoteJson = await runCli('plan', file, ...args, '--json', '--server', h.server.address);
      expect(JSON.parse(remoteJson.out)).toEqual(JSON.parse(localJson.out));
    }
  });

  it('an unmet target names the flag, as locally, with exit code 2', async () => {
    const local = await runCli('plan', file, '--p99-target', '4ms');
    const remote = await runCli('plan', file, '--p99-target', '4ms', '--server', h.server.address);
    expect(remote.code).toBe(2);
    expect(remote.err).toMatch(/^.*--p99-target: 4\.0000 ms cannot be met within the family .* the least achievable p99 is/);
    expect(remote.err).toBe(local.err);
  });
});

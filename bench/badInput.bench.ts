/**
 * Bad input against a real `batchwise serve`: the calls of the generated bad-input suite
 * (test/service/support/badInputs.ts: every numeric field of a scenario at seven bad values through
 * Evaluate, Simulate, Plan, Solve, Frontier and Export, and of a fleet through FleetSimulate and
 * FleetPlan; oversized strings; bytes that are no protobuf on every
 * RPC), each timed from the client. The reliability target is every call ended in under 1 s;
 * the test checks the statuses and fields, this measures the time (tests carry no wall-clock bound).
 */
import * as grpc from '@grpc/grpc-js';
import { BadInputClient, type BadCall } from '../test/service/support/badInputs.js';
import { startServer } from './server.js';
import { fmt, median } from './stats.js';
import type { BenchContext, BenchSection } from './types.js';

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

export default async function badInput(ctx: BenchContext): Promise<BenchSection> {
  const { proc, address } = await startServer();
  const client = new BadInputClient(address);
  const calls: BadCall[] = [];
  try {
    for (const group of [client.numeric(), client.fleet(), client.targets(), client.strings(), client.garbage()]) for await (const c of group) calls.push(c);
  } finally {
    client.close();
    proc.kill('SIGTERM');
  }
  ctx.log(`${calls.length} calls`);
  const byRpc = new Map<string, BadCall[]>();
  for (const c of calls) byRpc.set(`${c.group}: ${c.rpc}`, [...(byRpc.get(`${c.group}: ${c.rpc}`) ?? []), c]);
  const row = (name: string, cs: readonly BadCall[]): Record<string, string | number> => {
    const ms = cs.map((c) => c.ms).sort((a, b) => a - b);
    const codes = new Map<string, number>();
    for (const c of cs) codes.set(grpc.status[c.outcome.code], (codes.get(grpc.status[c.outcome.code]) ?? 0) + 1);
    return {
      calls: name,
      n: cs.length,
      statuses: [...codes].map(([k, v]) => `${k} ${v}`).join(', '),
      'median (ms)': fmt(median(ms)),
      'p99 (ms)': fmt(quantile(ms, 0.99)),
      'max (ms)': fmt(ms[ms.length - 1]),
      'over 1 s': ms.filter((x) => x > 1000).length,
    };
  };
  const rows = [...byRpc].map(([k, cs]) => row(k, cs));
  rows.push(row('all', calls));
  return {
    name: 'Bad input: time to the refusal',
    machineNote: 'A `batchwise serve` child process (CPU only, default limits), one client making the calls one after another.',
    rows,
    notes: ['The target: every call ends (INVALID_ARGUMENT, RESOURCE_EXHAUSTED, or OK for a value that is merely unusual) in under 1 s.'],
  };
}

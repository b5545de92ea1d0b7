import { describe, expect, it } from 'vitest';
import { FairQueue, type Queued } from '../../src/service/pool/fairQueue.js';

type J = Queued & { readonly name: string };
const job = (name: string, flow: string, batch: boolean, peer?: string): J => ({ name, flow, batch, peer });

describe('FairQueue (the pool’s waiting room)', () => {
  it('single calls and batch work take turns; within each, calls take turns; within a call, order is kept', () => {
    const q = new FairQueue<J>();
    for (let i = 0; i < 4; i++) q.push(job(`A${i}`, 'batchA', true));
    for (let i = 0; i < 4; i++) q.push(job(`B${i}`, 'batchB', true));
    q.push(job('s1', 'call1', false));
    q.push(job('s2', 'call2', false));
    q.push(job('s3a', 'call3', false));
    q.push(job('s3b', 'call3', false));
    expect(q.length).toBe(12);
    expect(q.singles).toBe(4);
    const order: string[] = [];
    for (let j = q.shift(); j; j = q.shift()) order.push(j.name);
    expect(order).toEqual(['s1', 'A0', 's2', 'B0', 's3a', 'A1', 's3b', 'B1', 'A2', 'B2', 'A3', 'B3']);
    expect(q.length).toBe(0);
  });

  it('counts the calls of a peer with a job waiting, and removes jobs', () => {
    const q = new FairQueue<J>();
    const x = job('x', 'c1', false, 'p1');
    q.push(x);
    q.push(job('y', 'c1', false, 'p1'));
    q.push(job('z', 'c2', false, 'p1'));
    q.push(job('w', 'c3', false, 'p2'));
    expect(q.callsWaitingOf('p1')).toBe(2);
    expect(q.callsWaitingOf('p2')).toBe(1);
    expect(q.hasFlow('c1')).toBe(true);
    expect(q.remove(x)).toBe(true);
    expect(q.remove(x)).toBe(false);
    expect(q.shift()!.name).toBe('y');
    expect(q.hasFlow('c1')).toBe(false);
    expect(q.drain().map((j) => j.name)).toEqual(['z', 'w']);
  });
});

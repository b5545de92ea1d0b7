import { describe, expect, it } from 'vitest';
import { AbortError, LimitError, ScenarioError } from '../../src/model/errors.js';
import { fromWireError, toWireError } from '../../src/scaleout/protocol.js';
import { fromWire, toWire } from '../../src/service/pool/wire.js';
import { inField, toStatus } from '../../src/service/rpc/errorTable.js';
import { reroot } from '../../src/validate/values.js';
import { Code, ServiceError, cancelledByClient, deadlineExceeded, serverShuttingDown } from '../../src/service/rpc/status.js';

describe('error → status table', () => {
  it('maps each error class to its code', () => {
    expect(toStatus(new ScenarioError('serviceTime.cv', 'must be > 0')).code).toBe(Code.INVALID_ARGUMENT);
    expect(toStatus(new LimitError('maxBatchSize', 'too big')).code).toBe(Code.INVALID_ARGUMENT);
    expect(toStatus(new ServiceError(Code.RESOURCE_EXHAUSTED, 'full')).code).toBe(Code.RESOURCE_EXHAUSTED);
    expect(toStatus(new AbortError()).code).toBe(Code.CANCELLED);
  });

  it('an abort carries the reason its signal was aborted with', () => {
    for (const [reason, code] of [
      [cancelledByClient(), Code.CANCELLED],
      [deadlineExceeded(), Code.DEADLINE_EXCEEDED],
      [serverShuttingDown(), Code.UNAVAILABLE],
    ] as const) {
      const c = new AbortController();
      c.abort(reason);
      expect(toStatus(new AbortError(), c.signal).code).toBe(code);
    }
  });

  it('names the full field path, and hides internal errors behind a generic message', () => {
    const s = toStatus(new ScenarioError('arrivalRate', 'is required'), undefined, 'scenario.');
    expect([s.field, s.details]).toEqual(['scenario.arrivalRate', 'scenario.arrivalRate: is required']);
    const i = toStatus(new TypeError('secret internals at /srv/x.ts:12'));
    expect(i.code).toBe(Code.INTERNAL);
    expect(i.internal).toBe(true);
    expect(i.details).not.toMatch(/secret/);
  });

  it('inField turns parse errors into INVALID_ARGUMENT on the absolute path', () => {
    try {
      inField('scenario.', () => {
        throw new ScenarioError('objective.powerWeight', 'must be ≥ 0 (got -1)');
      });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ServiceError);
      expect((e as ServiceError).field).toBe('scenario.objective.powerWeight');
      expect((e as ServiceError).code).toBe(Code.INVALID_ARGUMENT);
    }
  });

  it("a LimitError's facts (bound, excess, admissible rate) cross the pool's and the scale-out wire and a reroot; the status details stay field: reason", () => {
    const e = new LimitError('arrivalRate', 'is too close to capacity (the bound maxBandEntries); an arrivalRate up to about 4.21e+3 /s would fit', { bound: 'maxBandEntries', excess: 1.5, admissibleRate: 4214 });
    for (const back of [fromWire(toWire(e)), fromWireError(toWireError(e)), reroot(e, 'scenario')]) {
      expect(back).toBeInstanceOf(LimitError);
      expect((back as LimitError).facts).toEqual(e.facts);
      expect((back as LimitError).reason).toBe(e.reason);
    }
    const s = toStatus(fromWire(toWire(e)), undefined, 'scenario.');
    expect([s.code, s.field, s.details]).toEqual([Code.INVALID_ARGUMENT, 'scenario.arrivalRate', `scenario.arrivalRate: ${e.reason}`]);
    expect(new LimitError('x', 'y').facts).toEqual({ bound: undefined, excess: undefined, admissibleRate: undefined });
  });
});

import { describe, expect, it } from 'vitest';
import { formatTrace, parseTrace } from '../../src/sim/trace.js';

describe('parseTrace', () => {
  it('reads one timestamp per line, skipping blanks and # comments, with CRLF', () => {
    expect(Array.from(parseTrace('# arrivals\n0.5\r\n\n0.75\n1e0\n'))).toEqual([0.5, 0.75, 1]);
  });

  it('reads the timestamp column of a CSV, any case, quoted or not, any column position', () => {
    const csv = 'id,model,Timestamp\n1,a,"0.1"\n2,b,0.2\n3,c,0.35\n';
    expect(Array.from(parseTrace(csv))).toEqual([0.1, 0.2, 0.35]);
    expect(Array.from(parseTrace('t;x\n1;5\n2;6\n', { column: 't' }))).toEqual([1, 2]);
    expect(Array.from(parseTrace('when\tx\n3\t5\n4\t6\n', { column: 'when' }))).toEqual([3, 4]);
  });

  it('round-trips formatTrace exactly', () => {
    const times = Float64Array.of(0.1 + 0.2, 1 / 3, 12345.678901234567, 1e6 + Math.PI);
    expect(parseTrace(formatTrace(times))).toEqual(times);
  });

  it('names the line of each error', () => {
    expect(() => parseTrace('0.1\n0.05\n', { source: 'a.txt' })).toThrow(/a\.txt: line 2: timestamp 0\.05 is earlier/);
    expect(() => parseTrace('0.1\nabc\n')).toThrow(/line 2: "abc" holds no timestamp/);
    expect(() => parseTrace('id,ts\n1,2\n')).toThrow(/no column "timestamp" in the CSV header \(id, ts\)/);
    expect(() => parseTrace('id,timestamp\n1,0.5\n2\n')).toThrow(/line 3: "2" has no column 2/);
    expect(() => parseTrace('0.1\n', { source: 'one' })).toThrow(/one: holds 1 timestamp; at least 2/);
    expect(() => parseTrace('\n# nothing\n')).toThrow(/holds no timestamps/);
    expect(() => parseTrace('1\n2\n', { column: 'time' })).toThrow(/has no CSV header/);
    expect(() => parseTrace('1\nInfinity\n')).toThrow(/line 2/);
  });
});

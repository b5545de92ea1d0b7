/**
 * A corpus of refused inputs for every validator the toolkit serves (scenario, arrival
 * process, fleet, fleet requests, batch expansion). messages.test.ts pins the exact
 * `field: reason` each one gives, so a refactoring of the checks cannot change wording;
 * schema.test.ts checks that the published schemas refuse the same scenario and fleet files.
 */
import { parseFleetPlanRequest, parseFleetSimulateRequest } from '../../src/fleet/request.js';
import { parsePlanningRequest } from '../../src/plan/request.js';
import { expandBatch } from '../../src/service/batch/expand.js';
import { parseSimulateRequest } from '../../src/sim/request.js';
import { twoClassFleet } from '../fleet/helpers.js';
import { edit } from '../helpers/edit.js';
import { specScenario } from '../helpers/scenarios.js';

type Json = Record<string, unknown>;

const spec = (): Json => JSON.parse(JSON.stringify(specScenario(4000, 1e-4))) as Json;
const scenario = (path: string, value: unknown) => edit(spec(), path, value);
const arrivals = (proc: unknown, rate: unknown = 0) => ({ ...edit(spec(), 'arrivalRate', rate), arrivalProcess: proc });
const fleet = (path: string, value: unknown) => edit(twoClassFleet(2, 1), path, value);
const G2 = [-5, 5, 20, -20];
const ts = (n: number, at?: [number, unknown]): unknown[] => {
  const t: unknown[] = Array.from({ length: n }, (_, i) => i * 0.001);
  if (at) t[at[0]] = at[1];
  return t;
};
const B32 = (v: number, i = 7): number[] => Array.from({ length: 32 }, (_, j) => (j === i ? v : 0.002));

/** Scenario files (validateScenario). */
export const SCENARIO_CASES: Array<[string, unknown]> = [
  ['not an object', [1]],
  ['a string', 'x'],
  ['unknown top-level', scenario('arivalRate', 1)],
  ['arrivalRate missing', scenario('arrivalRate', undefined)],
  ['arrivalRate null', scenario('arrivalRate', null)],
  ['arrivalRate string', scenario('arrivalRate', '4000')],
  ['arrivalRate NaN', scenario('arrivalRate', Number.NaN)],
  ['arrivalRate Infinity', scenario('arrivalRate', Number.POSITIVE_INFINITY)],
  ['arrivalRate -Infinity', scenario('arrivalRate', Number.NEGATIVE_INFINITY)],
  ['arrivalRate negative', scenario('arrivalRate', -5)],
  ['arrivalRate zero', scenario('arrivalRate', 0)],
  ['arrivalRate huge', scenario('arrivalRate', 2e9)],
  ['arrivalRate above capacity', scenario('arrivalRate', 7000)],
  ['arrivalRate boolean', scenario('arrivalRate', true)],
  ['arrivalRate object', scenario('arrivalRate', {})],
  ['arrivalRate array', scenario('arrivalRate', [1])],
  ['maxBatchSize missing', scenario('maxBatchSize', undefined)],
  ['maxBatchSize 0', scenario('maxBatchSize', 0)],
  ['maxBatchSize 2.5', scenario('maxBatchSize', 2.5)],
  ['maxBatchSize 1025', scenario('maxBatchSize', 1025)],
  ['maxBatchSize string', scenario('maxBatchSize', '32')],
  ['serviceTime missing', scenario('serviceTime', undefined)],
  ['serviceTime number', scenario('serviceTime', 5)],
  ['serviceTime array', scenario('serviceTime', [])],
  ['serviceTime string', scenario('serviceTime', 'x')],
  ['serviceTime unknown', scenario('serviceTime.foo', 1)],
  ['serviceTime neither', scenario('serviceTime.linear', undefined)],
  ['serviceTime both', scenario('serviceTime.table', { values: [1] })],
  ['linear number', scenario('serviceTime.linear', 5)],
  ['linear empty', scenario('serviceTime.linear', {})],
  ['perItem negative', scenario('serviceTime.linear.perItem', -1e-4)],
  ['perItem huge', scenario('serviceTime.linear.perItem', 2e6)],
  ['base NaN', scenario('serviceTime.linear.base', Number.NaN)],
  ['base missing', scenario('serviceTime.linear.base', undefined)],
  ['linear unknown', scenario('serviceTime.linear.slope', 1)],
  ['linear gives zero', scenario('serviceTime.linear', { perItem: 0, base: 0 })],
  ['linear gives too much', scenario('serviceTime.linear', { perItem: 1e5, base: 0 })],
  ['table number', scenario('serviceTime', { table: 5 })],
  ['table unknown', scenario('serviceTime', { table: { values: B32(0.002), n: 1 } })],
  ['table values not array', scenario('serviceTime', { table: { values: 'x' } })],
  ['table wrong length', scenario('serviceTime', { table: { values: [0.002, 0.003] } })],
  ['table entry negative', scenario('serviceTime', { table: { values: B32(-1) } })],
  ['table entry string', scenario('serviceTime', { table: { values: B32(0.002).map((v, i) => (i === 3 ? 'x' : v)) } })],
  ['distribution unknown', scenario('serviceTime.distribution', 'NORMAL')],
  ['distribution number', scenario('serviceTime.distribution', 5)],
  ['gamma without cv', scenario('serviceTime.distribution', 'gamma')],
  ['gamma cv 0', edit(edit(spec(), 'serviceTime.distribution', 'GAMMA'), 'serviceTime.cv', 0)],
  ['gamma cv 5e-324', edit(edit(spec(), 'serviceTime.distribution', 'GAMMA'), 'serviceTime.cv', 5e-324)],
  ['gamma cv 5', edit(edit(spec(), 'serviceTime.distribution', 'GAMMA'), 'serviceTime.cv', 5)],
  ['cv without gamma', scenario('serviceTime.cv', 0.5)],
  ['cv with exponential', edit(edit(spec(), 'serviceTime.distribution', 'EXPONENTIAL'), 'serviceTime.cv', 1)],
  ['power missing', scenario('power', undefined)],
  ['power number', scenario('power', 5)],
  ['idleWatts negative', scenario('power.idleWatts', -1)],
  ['idleWatts string', scenario('power.idleWatts', 'a')],
  ['idleWatts huge', scenario('power.idleWatts', 2e7)],
  ['busyLinear missing', scenario('power.busyLinear', undefined)],
  ['busyLinear base negative', scenario('power.busyLinear.base', -80)],
  ['busyLinear gives too much', scenario('power.busyLinear', { perItem: 1e6, base: 0 })],
  ['busyTable entry', scenario('power', { busyTable: { values: B32(-1, 7) } })],
  ['power both', scenario('power.busyTable', { values: [] })],
  ['objective missing', scenario('objective', undefined)],
  ['objective number', scenario('objective', 5)],
  ['objective unknown', scenario('objective.cost', 1)],
  ['latencyWeight negative', scenario('objective.latencyWeight', -1)],
  ['latencyWeight zero', scenario('objective.latencyWeight', 0)],
  ['latencyWeight huge', scenario('objective.latencyWeight', 1e13)],
  ['weights both zero', scenario('objective', { latencyWeight: 0, powerWeight: 0 })],
  ['powerWeight Infinity', scenario('objective.powerWeight', Number.POSITIVE_INFINITY)],
  ['solver number', scenario('solver', 5)],
  ['solver array', scenario('solver', [])],
  ['solver unknown', scenario('solver.threads', 2)],
  ['tolerance negative', scenario('solver.tolerance', -1e-9)],
  ['tolerance large', scenario('solver.tolerance', 0.5)],
  ['tolerance tiny', scenario('solver.tolerance', 1e-20)],
  ['maxQueue negative', scenario('solver.maxQueue', -1)],
  ['maxQueue fraction', scenario('solver.maxQueue', 10.5)],
  ['maxQueue huge', scenario('solver.maxQueue', 200_001)],
  ['maxIterations negative', scenario('solver.maxIterations', -3)],
  ['maxIterations fraction', scenario('solver.maxIterations', 1.5)],
  ['backend unknown', scenario('solver.backend', 'TPU')],
  ['backend number', scenario('solver.backend', 5)],
  ['method unknown', scenario('solver.method', 'NEWTON')],
  ['method proto zero name', scenario('solver.method', 'METHOD_AUTO')],
  ['method lower-case proto zero name', scenario('solver.method', 'method_auto')],
  ['distribution proto zero name of method', scenario('serviceTime.distribution', 'METHOD_AUTO')],
];

/** Scenario files with an arrivalProcess (validateScenario). */
export const ARRIVAL_CASES: Array<[string, unknown]> = [
  ['process number', arrivals(5)],
  ['process array', arrivals([])],
  ['process empty', arrivals({})],
  ['process unknown kind', arrivals({ poisson: {} })],
  ['process two kinds', arrivals({ mmpp: { rates: [1, 2], generator: G2 }, burst: {} })],
  ['mmpp number', arrivals({ mmpp: 5 })],
  ['mmpp unknown', arrivals({ mmpp: { rates: [1000, 4000], generator: G2, q: 1 } })],
  ['rates missing', arrivals({ mmpp: { generator: G2 } })],
  ['rates number', arrivals({ mmpp: { rates: 5, generator: G2 } })],
  ['rates empty', arrivals({ mmpp: { rates: [], generator: [] } })],
  ['nine phases', arrivals({ mmpp: { rates: new Array(9).fill(100), generator: new Array(81).fill(0) } })],
  ['rate negative', arrivals({ mmpp: { rates: [-1, 4000], generator: G2 } })],
  ['rate string', arrivals({ mmpp: { rates: ['x', 4000], generator: G2 } })],
  ['rate NaN', arrivals({ mmpp: { rates: [Number.NaN, 4000], generator: G2 } })],
  ['rate Infinity', arrivals({ mmpp: { rates: [Number.POSITIVE_INFINITY, 4000], generator: G2 } })],
  ['rate huge', arrivals({ mmpp: { rates: [2e9, 4000], generator: G2 } })],
  ['rates silent', arrivals({ mmpp: { rates: [0, 0], generator: G2 } })],
  ['generator missing', arrivals({ mmpp: { rates: [1000, 4000] } })],
  ['generator number', arrivals({ mmpp: { rates: [1000, 4000], generator: 5 } })],
  ['generator wrong size', arrivals({ mmpp: { rates: [1000, 4000], generator: [0, 0, 0] } })],
  ['generator wrong rows', arrivals({ mmpp: { rates: [1000, 4000], generator: [[-5, 5]] } })],
  ['generator row length', arrivals({ mmpp: { rates: [1000, 4000], generator: [[-5, 5, 0], [20, -20]] } })],
  ['generator row not array', arrivals({ mmpp: { rates: [1000, 4000], generator: [[-5, 5], 3] } })],
  ['generator row sum', arrivals({ mmpp: { rates: [1000, 4000], generator: [-5, 4, 20, -20] } })],
  ['generator row sum nested', arrivals({ mmpp: { rates: [1000, 4000], generator: [[-5, 5], [20, -21]] } })],
  ['generator diagonal positive', arrivals({ mmpp: { rates: [1000, 4000], generator: [[5, -5], [20, -20]] } })],
  ['generator off-diagonal negative', arrivals({ mmpp: { rates: [1, 2, 3], generator: [-1, 2, -1, 1, -1, 0, 1, 1, -2] } })],
  ['generator reducible', arrivals({ mmpp: { rates: [1000, 4000, 10], generator: [-5, 5, 0, 20, -20, 0, 1, 1, -2] } })],
  ['generator entry string', arrivals({ mmpp: { rates: [1000, 4000], generator: [-5, 'x', 20, -20] } })],
  ['generator entry huge', arrivals({ mmpp: { rates: [1000, 4000], generator: [-2e9, 2e9, 20, -20] } })],
  ['arrivalRate differs', arrivals({ mmpp: { rates: [1000, 4000], generator: G2 } }, 1500)],
  ['arrivalRate string with process', arrivals({ mmpp: { rates: [1000, 4000], generator: G2 } }, 'x')],
  ['arrivalRate Infinity with process', arrivals({ mmpp: { rates: [1000, 4000], generator: G2 } }, Number.POSITIVE_INFINITY)],
  ['arrivalRate NaN with process', arrivals({ mmpp: { rates: [1000, 4000], generator: G2 } }, Number.NaN)],
  ['mean above capacity', arrivals({ mmpp: { rates: [4000, 9000], generator: [-5, 5, 5, -5] } })],
  ['burst number', arrivals({ burst: 5 })],
  ['burst unknown', arrivals({ burst: { meanRate: 1000, peakToMean: 2, meanBurstSeconds: 0.05, meanGapSeconds: 0.2, x: 1 } })],
  ['burst meanRate missing', arrivals({ burst: { peakToMean: 2, meanBurstSeconds: 0.05, meanGapSeconds: 0.2 } })],
  ['burst meanRate zero', arrivals({ burst: { meanRate: 0, peakToMean: 2, meanBurstSeconds: 0.05, meanGapSeconds: 0.2 } })],
  ['burst peak below 1', arrivals({ burst: { meanRate: 1000, peakToMean: 0.5, meanBurstSeconds: 0.05, meanGapSeconds: 0.2 } })],
  ['burst peak too high', arrivals({ burst: { meanRate: 1000, peakToMean: 6, meanBurstSeconds: 0.05, meanGapSeconds: 0.2 } })],
  ['burst gap negative', arrivals({ burst: { meanRate: 1000, peakToMean: 2, meanBurstSeconds: 0.05, meanGapSeconds: -1 } })],
  ['burst length string', arrivals({ burst: { meanRate: 1000, peakToMean: 2, meanBurstSeconds: '1', meanGapSeconds: 0.2 } })],
  ['trace number', arrivals({ trace: 5 })],
  ['trace unknown', arrivals({ trace: { timestamps: ts(1000), rate: 1 } })],
  ['trace missing', arrivals({ trace: {} })],
  ['trace short', arrivals({ trace: { timestamps: [0, 1, 2] } })],
  ['trace unsorted', arrivals({ trace: { timestamps: ts(2000, [1234, 0.5]) } })],
  ['trace string entry', arrivals({ trace: { timestamps: ts(2000, [10, 'x']) } })],
  ['trace NaN entry', arrivals({ trace: { timestamps: ts(2000, [10, Number.NaN]) } })],
  ['trace object entry', arrivals({ trace: { timestamps: ts(2000, [10, {}]) } })],
  ['trace constant', arrivals({ trace: { timestamps: new Array(1000).fill(3) } })],
];

const two = () => twoClassFleet(2, 1) as unknown as Json;
const mmppClass = (rate: unknown, rates: unknown = [10, 40]) =>
  edit(two(), 'classes', [{ name: 'vision', arrivalRate: rate, arrivalProcess: { mmpp: { rates, generator: G2 } } }, (two().classes as unknown[])[1]]);

/** Fleet files (validateFleet). */
/** Two groups of 200 accelerators: each count is within bounds, their sum is not. */
function bigFleet(): Json {
  const f = edit(two(), 'accelerators.0.count', 200);
  const [gpu] = f.accelerators as Json[];
  return { ...f, accelerators: [gpu, { ...gpu, name: 'b' }] };
}

export const FLEET_CASES: Array<[string, unknown]> = [
  ['fleet not object', 5],
  ['fleet unknown', fleet('routers', 1)],
  ['classes missing', fleet('classes', undefined)],
  ['classes empty', fleet('classes', [])],
  ['classes too many', fleet('classes', Array.from({ length: 17 }, (_, i) => ({ name: `c${i}`, arrivalRate: 1 })))],
  ['class number', fleet('classes', [5])],
  ['class unknown', fleet('classes', [{ name: 'vision', arrivalRate: 1, prio: 1 }])],
  ['class name missing', fleet('classes', [{ arrivalRate: 1 }])],
  ['class name empty', fleet('classes', [{ name: ' ', arrivalRate: 1 }])],
  ['class name number', fleet('classes', [{ name: 5, arrivalRate: 1 }])],
  ['class rate missing', fleet('classes', [{ name: 'vision' }])],
  ['class rate negative', fleet('classes', [{ name: 'vision', arrivalRate: -1 }])],
  ['class rate string', fleet('classes', [{ name: 'vision', arrivalRate: 'x' }])],
  ['class rate NaN', fleet('classes', [{ name: 'vision', arrivalRate: Number.NaN }])],
  ['class rate huge', fleet('classes', [{ name: 'vision', arrivalRate: 2e9 }])],
  ['class rate object', fleet('classes', [{ name: 'vision', arrivalRate: { a: 1 } }])],
  ['class target zero', fleet('classes', [{ name: 'vision', arrivalRate: 1, latencyTarget: 0 }])],
  ['class target string', fleet('classes', [{ name: 'vision', arrivalRate: 1, latencyTarget: 'x' }])],
  ['class weight negative', fleet('classes', [{ name: 'vision', arrivalRate: 1, weight: -1 }])],
  ['class repeated', fleet('classes', [{ name: 'vision', arrivalRate: 1 }, { name: 'vision', arrivalRate: 1 }])],
  ['class process bad', mmppClass(0, [-1, 4])],
  ['class process rate differs', mmppClass(7)],
  ['class process rate string', mmppClass('x')],
  ['objective number', fleet('objective', 5)],
  ['objective null', fleet('objective', null)],
  ['objective unknown', fleet('objective.cost', 1)],
  ['objective both zero', fleet('objective', { latencyWeight: 0, powerWeight: 0 })],
  ['objective latency negative', fleet('objective.latencyWeight', -1)],
  ['batching unknown', fleet('batching', 'SOMETIMES')],
  ['batching number', fleet('batching', 5)],
  ['batching lower case', fleet('batching', 'mixed')],
  ['accelerators missing', fleet('accelerators', undefined)],
  ['accelerators empty', fleet('accelerators', [])],
  ['accelerator number', fleet('accelerators', [5])],
  ['accelerator unknown', fleet('accelerators.0.speed', 1)],
  ['accelerator name missing', fleet('accelerators.0.name', undefined)],
  ['accelerator count 0', fleet('accelerators.0.count', 0)],
  ['accelerator count fraction', fleet('accelerators.0.count', 1.5)],
  ['accelerator count huge', fleet('accelerators.0.count', 257)],
  ['accelerator maxBatchSize 0', fleet('accelerators.0.maxBatchSize', 0)],
  ['accelerator policy number', fleet('accelerators.0.policy', 5)],
  ['accelerator serviceTime missing', fleet('accelerators.0.serviceTime', undefined)],
  ['accelerator serviceTime unknown class', fleet('accelerators.0.serviceTime.speech', { linear: { perItem: 1, base: 1 } })],
  ['accelerator serviceTime class missing', fleet('accelerators.0.serviceTime.language', undefined)],
  ['accelerator serviceTime class number', fleet('accelerators.0.serviceTime.language', 5)],
  ['accelerator perItem negative', fleet('accelerators.0.serviceTime.vision.linear.perItem', -1)],
  ['accelerator gamma without cv', fleet('accelerators.0.serviceTime.language.cv', undefined)],
  ['accelerator power missing', fleet('accelerators.0.power', undefined)],
  ['accelerator idleWatts negative', fleet('accelerators.0.power.idleWatts', -5)],
  ['accelerators too many in all', bigFleet()],
  ['fleet overloaded', fleet('classes.1.arrivalRate', 1000)],
];

const okFleet = () => twoClassFleet(2, 1);
const sim = (extra: Json) => () => parseFleetSimulateRequest({ fleet: okFleet(), ...extra });
const plan = (extra: Json) => () => parseFleetPlanRequest({ fleet: okFleet(), ...extra });
const weights = { theta: [[0], [0]], tau: 1 };

/** Requests: the fleet RPCs' fields and SolveBatch sources. */
export const REQUEST_CASES: Array<[string, () => unknown]> = [
  ['simulate not object', () => parseFleetSimulateRequest(5)],
  ['simulate unknown', sim({ speed: 1 })],
  ['simulate fleet missing', () => parseFleetSimulateRequest({})],
  ['simulate fleet bad', sim({ fleet: { classes: [] } })],
  ['simulate fleet not object', sim({ fleet: 5 })],
  ['router number', sim({ router: 5 })],
  ['router unknown', sim({ router: 'magic' })],
  ['weights for jsq', sim({ weights })],
  ['learned without weights', sim({ router: 'learned' })],
  ['segregation mixed', () => parseFleetSimulateRequest({ fleet: twoClassFleet(2, 1, 'MIXED'), router: 'segregation' })],
  ['requests negative', sim({ requests: -1 })],
  ['requests string', sim({ requests: 'x' })],
  ['requests huge', sim({ requests: 3e8 })],
  ['warmup huge', sim({ warmupRequests: 3e8 })],
  ['seed fraction', sim({ seed: 1.5 })],
  ['weights number', sim({ router: 'learned', weights: 5 })],
  ['weights theta short', sim({ router: 'learned', weights: { theta: [[0]], tau: 1 } })],
  ['weights theta missing', sim({ router: 'learned', weights: { tau: 1 } })],
  ['weights theta row', sim({ router: 'learned', weights: { theta: [[0], 5], tau: 1 } })],
  ['weights theta entry', sim({ router: 'learned', weights: { theta: [[0], ['x']], tau: 1 } })],
  ['weights tau zero', sim({ router: 'learned', weights: { theta: [[0], [0]], tau: 0 } })],
  ['plan not object', () => parseFleetPlanRequest([])],
  ['plan unknown', plan({ speed: 1 })],
  ['plan mixed', () => parseFleetPlanRequest({ fleet: twoClassFleet(2, 1, 'MIXED') })],
  ['plan least string', plan({ least: 'yes' })],
  ['plan kind without least', plan({ kind: 'gpu' })],
  ['plan max without least', plan({ maxAccelerators: 4 })],
  ['plan kind unknown', plan({ least: true, kind: 'tpu' })],
  ['plan max huge', plan({ least: true, maxAccelerators: 300 })],
  ['plan no targets', () => parseFleetPlanRequest({ fleet: edit(edit(okFleet(), 'classes.0.latencyTarget', undefined), 'classes.1.latencyTarget', undefined), least: true })],
  ['simulate scenario not object', () => parseSimulateRequest(5)],
  ['simulate scenario unknown', () => parseSimulateRequest({ scenario: spec(), speed: 1 })],
  ['simulate scenario missing', () => parseSimulateRequest({ scenario: null })],
  ['simulate scenario bad', () => parseSimulateRequest({ scenario: edit(spec(), 'arrivalRate', -1) })],
  ['simulate scenario not a JSON object', () => parseSimulateRequest({ scenario: 5 })],
  ['simulate requests negative', () => parseSimulateRequest({ scenario: spec(), requests: -1 })],
  ['simulate seed string', () => parseSimulateRequest({ scenario: spec(), seed: 'x' })],
  ['simulate seed as a string, fractional batches', () => parseSimulateRequest({ scenario: spec(), seed: '0', confidenceBatches: 1.5 })],
  ['simulate timestamp string', () => parseSimulateRequest({ scenario: spec(), arrivalTimestamps: [0, 'x'] })],
  ['planning not object', () => parsePlanningRequest('plan', [])],
  ['planning unknown', () => parsePlanningRequest('frontier', { scenario: spec(), latencyTarget: 1 })],
  ['planning scenario missing', () => parsePlanningRequest('plan', {})],
  ['planning scenario bad', () => parsePlanningRequest('plan', { scenario: edit(spec(), 'solver.method', 'X') })],
  ['planning fleet count', () => parsePlanningRequest('fleet', { scenario: spec(), totalRate: 1, latencyTarget: 1, maxAccelerators: -2 })],
  ['planning fleet seed', () => parsePlanningRequest('fleet', { scenario: spec(), totalRate: 1, latencyTarget: 1, seed: 1.5 })],
  ['planning export requests', () => parsePlanningRequest('export', { scenario: spec(), target: 'triton', requests: '3e8' })],
  ['batch both', () => expandBatch({ list: { scenarios: [] }, grid: { base: spec() } }, 10)],
  ['batch neither', () => expandBatch({}, 10)],
  ['batch grid base missing', () => expandBatch({ grid: {} }, 10)],
  ['batch grid too big', () => expandBatch({ grid: { base: spec(), arrivalRate: [1, 2, 3] } }, 2)],
];

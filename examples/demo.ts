/**
 * `npm run demo`: the quick start, end to end. Starts the gRPC service on a free loopback
 * port, solves examples/scenario.json through a real client with streamed progress, prints
 * the result, and shuts the server down.
 */
import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { formatSolve } from '../src/cli/format.js';
import { BatchwiseClient, BatchwiseServer } from '../src/service/index.js';

const file = new URL('./scenario.json', import.meta.url);
const scenario = JSON.parse(readFileSync(file, 'utf8')) as { maxBatchSize: number };

const server = await BatchwiseServer.start({ port: 0, logger: pino({ level: 'warn' }), processMetrics: false });
console.log(`batchwise listening on ${server.address} (plaintext, loopback only)`);
const client = new BatchwiseClient(server.address);
try {
  const { result } = await client.solve(scenario, {
    progressIntervalMs: 10,
    onProgress: (p) =>
      console.log(
        `  progress: S = ${p.maxQueue}, iteration ${p.iteration}, g* ∈ [${p.averageCostLower.toPrecision(10)}, ${p.averageCostUpper.toPrecision(10)}], control limit ${p.controlLimit}`,
      ),
  });
  console.log(formatSolve(result, scenario.maxBatchSize));
} finally {
  client.close();
  await server.shutdown();
  console.log('server stopped');
}

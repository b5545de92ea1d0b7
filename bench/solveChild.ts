/**
 * One solve in a fresh process, for bench/hardRegimes.bench.ts: a build's library entry as the
 * argument, the scenario as JSON on stdin; prints 'start' as the solve starts (the parent's time
 * limit counts from there), then one JSON line, {ms, answer} or {ms, error}.
 * A process of its own so that the bench can stop a solve at its time limit (a solve holds the
 * thread) and so that both builds start equally cold; `ms` is the solveScenario call alone, not
 * the process start or the module load.
 */
import { pathToFileURL } from 'node:url';

interface Library {
  solveScenario(s: unknown, opts?: { percentiles?: boolean }): Promise<unknown>;
}

async function main(): Promise<void> {
  const entry = process.argv[2];
  let input = '';
  for await (const chunk of process.stdin) input += String(chunk);
  const lib = (await import(pathToFileURL(entry).href)) as Library;
  const scenario: unknown = JSON.parse(input);
  process.stdout.write('start\n');
  const t = performance.now();
  try {
    // The baseline predates the percentiles option and ignores it; this build skips them so that both time the solve.
    const answer = await lib.solveScenario(scenario, { percentiles: false });
    process.stdout.write(`${JSON.stringify({ ms: performance.now() - t, answer })}\n`);
  } catch (e) {
    process.stdout.write(`${JSON.stringify({ ms: performance.now() - t, error: e instanceof Error ? e.message : String(e) })}\n`);
  }
}

await main();

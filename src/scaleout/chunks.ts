import { orderForWarmStarts } from '../service/batch/chains.js';
import type { BatchTask } from '../service/batch/executor.js';

/**
 * Chunk size for a batch of n scenarios: big enough that queue round trips are a small part
 * of a chunk's time (a solve takes milliseconds to seconds, a queue hop about a millisecond),
 * small enough that a batch makes ~64 chunks to spread over workers and that a chunk lost with
 * its worker costs little to redo.
 */
export function chunkSizeFor(n: number, override?: number): number {
  if (override !== undefined) return Math.max(1, Math.floor(override));
  return Math.min(100, Math.max(8, Math.ceil(n / 64)));
}

/** Orders tasks for warm starts (neighbours together) and cuts them into contiguous chunks. */
export function splitIntoChunks(tasks: readonly BatchTask[], size: number): BatchTask[][] {
  const ordered = orderForWarmStarts(tasks);
  const out: BatchTask[][] = [];
  for (let i = 0; i < ordered.length; i += size) out.push(ordered.slice(i, i + size));
  return out;
}

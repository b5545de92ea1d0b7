import type { ModelParams } from '../model/scenario.js';

/** The scenario facts a chart title names: B and the service law (and, where they matter, the weights). */
export function serviceLabel(p: ModelParams): string {
  const law = p.distribution === 'GAMMA' ? `gamma service (cv ${p.cv})` : `${p.distribution.toLowerCase()} service`;
  return `B = ${p.maxBatchSize} · ${law}`;
}

export function weightsLabel(p: ModelParams): string {
  return `w_lat = ${p.latencyWeight}, w_pow = ${p.powerWeight}`;
}

/** Plain-text reports of fleet simulations and plans (CLI). */
import type { FleetSimulation } from './result.js';
import type { FleetParams } from './scenario.js';
import type { SegregationPlan } from './segregation.js';

const ms = (s: number): string => `${(s * 1e3).toFixed(3)} ms`;

export function formatFleetSimulation(r: FleetSimulation): string {
  const lines = [
    `Router ${r.router}, ${r.batching === 'MIXED' ? 'mixed' : 'per-class'} batches: ${r.requests.toLocaleString('en-US')} requests measured ` +
      `(seed ${r.seed}, ${r.warmupRequests.toLocaleString('en-US')} warm-up), ${r.simulatedSeconds.toPrecision(6)} s of model time`,
    `  average cost ${r.averageCost.toPrecision(6)}${r.averageCostCi === null ? '' : ` ± ${r.averageCostCi.toPrecision(3)}`}   ` +
      `fleet power ${r.meanPower.toFixed(2)} W${r.meanPowerCi === null ? '' : ` ± ${r.meanPowerCi.toFixed(2)}`}   mean response ${ms(r.meanResponseTime)}`,
    '  class        requests     mean (95% CI)            p50         p99         p99.9       HOL blocking',
  ];
  for (const c of r.classes) {
    lines.push(
      `  ${c.name.padEnd(12)} ${String(c.requests).padStart(9)}  ${`${ms(c.meanResponseTime)} ± ${c.meanResponseCi === null ? '?' : ms(c.meanResponseCi)}`.padEnd(24)} ` +
        `${ms(c.p50).padStart(11)} ${ms(c.p99).padStart(11)} ${ms(c.p999).padStart(11)} ${ms(c.meanHeadOfLineBlocking).padStart(12)}`,
    );
  }
  lines.push('  accelerator  kind        utilisation  mean batch  power      throughput');
  for (const a of r.accelerators) {
    lines.push(
      `  ${String(a.index).padEnd(12)} ${a.kind.padEnd(11)} ${`${(a.utilization * 100).toFixed(1)} %`.padStart(11)}  ${a.meanBatchSize.toFixed(2).padStart(10)}  ` +
        `${`${a.meanPower.toFixed(1)} W`.padStart(9)}  ${`${a.throughput.toFixed(1)} /s`.padStart(11)}`,
    );
  }
  return lines.join('\n');
}

export function formatPlan(f: FleetParams, p: SegregationPlan): string {
  const lines = [
    `Segregation (exact): average cost ${p.averageCost.toPrecision(8)}, fleet power ${p.meanPower.toFixed(2)} W ` +
      `(${p.splitsCompared} splits compared, ${p.solves} exact solves)`,
  ];
  f.classes.forEach((cl, c) => {
    const pc = p.classes[c];
    const kinds = p.counts.map((row, k) => (row[c] > 0 ? `${row[c]} × ${f.kinds[k].name}` : '')).filter((x) => x !== '');
    const target = cl.latencyTarget === null ? '' : ` (target ${ms(cl.latencyTarget)}: ${pc.meetsTarget ? 'met' : 'MISSED'})`;
    lines.push(`  ${cl.name}: ${kinds.join(' + ')}, mean response ${ms(pc.meanResponseTime)}${target}`);
  });
  for (const g of p.groups) {
    lines.push(
      `    ${f.kinds[g.kind].name} for ${f.classes[g.cls].name}: ${g.rate.toPrecision(6)} /s each, optimal policy control limit ${g.controlLimit}, ` +
        `E[R] ${ms(g.meanResponseTime)}, E[P] ${g.meanPower.toFixed(2)} W`,
    );
  }
  return lines.join('\n');
}

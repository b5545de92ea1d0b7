/** One benchmark's contribution to the results file and the Markdown summary. */
export interface BenchSection {
  name: string;
  machineNote?: string;
  rows: Array<Record<string, string | number>>;
  notes?: string[];
}

export interface BenchContext {
  /** Cut repetitions so the benchmark finishes in seconds. */
  quick: boolean;
  log: (msg: string) => void;
}

export type Bench = (ctx: BenchContext) => Promise<BenchSection>;

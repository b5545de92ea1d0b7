/** What a merge gives back: the user's file with the batching fields set, and what changed, in lines. */
export interface MergeResult {
  readonly text: string;
  /** `changed: field old → new`, `added: field value`, `kept: …` (fields kept that the model does not assume), `note: …`. */
  readonly notes: string[];
}

/** Context a merge needs besides the setting. */
export interface MergeContext {
  /** The model / deployment to update where the file holds several (TorchServe models, Ray deployments). */
  readonly modelName?: string;
  /** TF Serving max_enqueued_batches (RenderContext). */
  readonly maxEnqueuedBatches: number;
}

/** Collects the change notes of one merge. */
export class Notes {
  readonly lines: string[] = [];
  /** A field set: `changed` when it had another value, `added` when it was absent, `unchanged` when it already held it. */
  set(field: string, old: string | undefined, value: string): void {
    if (old === undefined) this.lines.push(`added: ${field} ${value}`);
    else if (old !== value) this.lines.push(`changed: ${field} ${old} → ${value}`);
    else this.lines.push(`unchanged: ${field} ${value}`);
  }
  push(line: string): void {
    this.lines.push(line);
  }
}

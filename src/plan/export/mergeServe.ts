import type { YAMLMap } from 'yaml';
import { ScenarioError } from '../../model/errors.js';
import { Notes, type MergeContext, type MergeResult } from './mergeNotes.js';
import { pythonFloat } from './render.js';
import type { BatchingSetting } from './targets.js';
import { yaml } from './yamlLib.js';
import { insertKey, mapAt, readYaml, removeKey, scalarText, seqAt, setKey, type YamlPath } from './yamlEdit.js';

/**
 * The export merged into TorchServe's config.properties (the `models` JSON) or model-config.yaml,
 * and into a Ray Serve config YAML (one deployment's options).
 */
const torchKeys = (s: BatchingSetting): Record<string, number> => ({ batchSize: s.maxBatchSize, maxBatchDelay: Math.round(s.delay * 1e3), minWorkers: 1, maxWorkers: 1 });

const MODELS_LINE = /^(\s*models\s*[=:]\s*)(.*?)(\r?)$/;

export function isProperties(text: string, file: string): boolean {
  return file.endsWith('.properties') || text.split(/\r?\n/).some((l) => MODELS_LINE.test(l));
}

export function mergeTorchServeProperties(text: string, file: string, s: BatchingSetting, c: MergeContext): MergeResult {
  const notes = new Notes();
  const lines = text.split('\n');
  const i = lines.findIndex((l) => MODELS_LINE.test(l));
  const keys = torchKeys(s);
  if (i < 0) {
    const name = c.modelName ?? 'model';
    const models = { [name]: { '1.0': { defaultVersion: true, marName: `${name}.mar`, ...keys } } };
    notes.push(`added: models=${JSON.stringify(models)}`);
    return { text: text + (text === '' || text.endsWith('\n') ? '' : '\n') + `models=${JSON.stringify(models)}\n`, notes: notes.lines };
  }
  const [, prefix, json, cr] = MODELS_LINE.exec(lines[i])!;
  if (/\\\s*$/.test(json)) throw new ScenarioError(file, `line ${i + 1}: models= continues over lines (a trailing \\): write its JSON on one line to merge`);
  let models: Record<string, Record<string, Record<string, unknown>>>;
  try {
    models = JSON.parse(json) as typeof models;
  } catch (e) {
    throw new ScenarioError(file, `line ${i + 1}: models= is not JSON (${(e as Error).message})`);
  }
  if (typeof models !== 'object' || models === null || Array.isArray(models)) throw new ScenarioError(file, `line ${i + 1}: models= must be a JSON object of models`);
  const names = Object.keys(models);
  const name = c.modelName ?? (names.length === 1 ? names[0] : undefined);
  if (name === undefined) throw new ScenarioError(file, `line ${i + 1}: models= holds ${names.join(', ')}: name the one to merge into with --model-name`);
  if (!(name in models)) throw new ScenarioError(file, `line ${i + 1}: models= has no model ${JSON.stringify(name)} (it has ${names.join(', ') || 'none'})`);
  const versions = Object.entries(models[name]);
  const version = versions.find(([, v]) => v.defaultVersion === true) ?? versions[0];
  if (version === undefined) throw new ScenarioError(file, `line ${i + 1}: model ${name} has no version`);
  for (const [k, v] of Object.entries(keys)) {
    notes.set(`models.${name}.${version[0]}.${k}`, version[1][k] === undefined ? undefined : JSON.stringify(version[1][k]), String(v));
    version[1][k] = v;
  }
  if (names.length > 1) notes.push(`kept: models ${names.filter((n) => n !== name).join(', ')} as written`);
  lines[i] = prefix + JSON.stringify(models) + cr;
  return { text: lines.join('\n'), notes: notes.lines };
}

export function mergeTorchServeYaml(text: string, file: string, s: BatchingSetting): MergeResult {
  const notes = new Notes();
  let y = readYaml(text, file);
  if (y.doc.contents === null) {
    // Empty (or comments only): the four keys appended.
    const keys = Object.entries(torchKeys(s));
    for (const [k, v] of keys) notes.set(k, undefined, String(v));
    return { text: text + (text === '' || text.endsWith('\n') ? '' : '\n') + keys.map(([k, v]) => `${k}: ${v}\n`).join(''), notes: notes.lines };
  }
  const root = mapAt(y, [], file, 'model-config.yaml');
  if (root.has('applications')) throw new ScenarioError(file, 'line 1: has applications: this is a Ray Serve config, not a TorchServe model-config.yaml');
  for (const [k, v] of Object.entries(torchKeys(s))) {
    notes.set(k, scalarText(y, mapAt(y, [], file, 'model-config.yaml'), k), String(v));
    y = readYaml(setKey(y, mapAt(y, [], file, 'model-config.yaml'), k, String(v), file), file);
  }
  return { text: y.text, notes: notes.lines };
}

/** The deployment to merge into: the one named, or the only one. */
function deploymentPath(text: string, file: string, name: string | undefined): YamlPath {
  const y = readYaml(text, file);
  const apps = seqAt(y, ['applications']);
  if (apps === undefined) throw new ScenarioError(file, 'line 1: no applications: list (a Ray Serve config YAML, as `serve build` writes it)');
  const found: { path: YamlPath; name: string }[] = [];
  apps.forEach((_, a) => {
    (seqAt(y, ['applications', a, 'deployments']) ?? []).forEach((d, k) => {
      if (yaml().isMap(d)) found.push({ path: ['applications', a, 'deployments', k], name: String(d.get('name')) });
    });
  });
  const hit = name === undefined ? (found.length === 1 ? found[0] : undefined) : found.find((f) => f.name === name);
  if (hit) return hit.path;
  if (found.length === 0) throw new ScenarioError(file, 'line 1: no applications[].deployments[] entry to merge into: list the deployment (- name: ClassName) under its application');
  const has = found.map((f) => f.name).join(', ');
  throw new ScenarioError(file, name === undefined ? `line 1: deployments ${has}: name the one to merge into with --model-name` : `line 1: no deployment ${JSON.stringify(name)} (it has ${has})`);
}

export function mergeRayServe(text: string, file: string, s: BatchingSetting, c: MergeContext): MergeResult {
  const notes = new Notes();
  const path = deploymentPath(text, file, c.modelName);
  let y = readYaml(text, file);
  const dep = (): YAMLMap => mapAt(y, path, file, 'the deployment');
  const name = String(dep().get('name'));
  const set = (m: () => YAMLMap, field: string, key: string, value: string): void => {
    notes.set(field, scalarText(y, m(), key), value);
    y = readYaml(setKey(y, m(), key, value, file), file);
  };
  set(dep, `${name}.max_ongoing_requests`, 'max_ongoing_requests', String(s.maxOngoingRequests ?? s.maxBatchSize));
  if (dep().has('autoscaling_config')) {
    notes.push(`removed: ${name}.autoscaling_config (Ray refuses it beside num_replicas: 1; the model runs one replica)`);
    y = readYaml(removeKey(y, dep(), 'autoscaling_config'), file);
  }
  set(dep, `${name}.num_replicas`, 'num_replicas', '1');
  const actor = dep().get('ray_actor_options', true);
  if (actor === undefined) {
    notes.push(`added: ${name}.ray_actor_options.num_gpus 1`);
    y = readYaml(insertKey(y, dep(), 'ray_actor_options', { num_gpus: '1' }), file);
  } else {
    set(() => mapAt(y, [...path, 'ray_actor_options'], file, 'ray_actor_options'), `${name}.ray_actor_options.num_gpus`, 'num_gpus', '1');
  }
  set(dep, `${name}.max_queued_requests`, 'max_queued_requests', '-1');
  // @serve.batch arguments a user_config already carries (read by the deployment's reconfigure).
  const user = dep().get('user_config', true);
  const batch: Record<string, string> = { max_batch_size: String(s.maxBatchSize), batch_wait_timeout_s: pythonFloat(s.delay) };
  if (yaml().isMap(user)) {
    for (const [k, v] of Object.entries(batch)) {
      const n = user.get(k, true);
      if (yaml().isScalar(n)) set(() => mapAt(y, [...path, 'user_config'], file, 'user_config'), `${name}.user_config.${k}`, k, v);
    }
  }
  notes.push(
    `note: the @serve.batch arguments live in code: @serve.batch(max_batch_size=${batch.max_batch_size}, batch_wait_timeout_s=${batch.batch_wait_timeout_s}, max_concurrent_batches=1)`,
  );
  return { text: y.text, notes: notes.lines };
}

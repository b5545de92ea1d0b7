import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { checkHealth, serveAddress } from '../../src/scaleout/healthcheck.js';
import { startHarness, type Harness } from '../service/support/harness.js';

/** Every object in deploy/kubernetes, validated offline against the Kubernetes schemas (kubernetes-models). */
const DIR = 'deploy/kubernetes';
type Obj = { apiVersion: string; kind: string; metadata: { name: string }; spec: Record<string, unknown> };
const objects: Obj[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((f) => parseAllDocuments(readFileSync(`${DIR}/${f}`, 'utf8')).map((d) => d.toJS() as Obj));

const MODELS: Record<string, new (o: never) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'v1/Service': Service,
  'v1/ConfigMap': ConfigMap,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
};

const find = (kind: string, name: string): Obj => {
  const o = objects.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o) throw new Error(`${kind}/${name} missing from ${DIR}`);
  return o;
};

type Pod = { securityContext?: { runAsNonRoot?: boolean }; containers: Array<{ args?: string[]; env?: Array<{ name: string; value: string }>; readinessProbe?: { grpc?: { port: number } }; livenessProbe?: { grpc?: { port: number } } }> };
const podOf = (d: Obj): Pod => (d.spec as { template: { spec: Pod } }).template.spec;

describe('deployment manifests', () => {
  it('every object passes its Kubernetes schema', () => {
    expect(objects.length).toBeGreaterThanOrEqual(6);
    for (const o of objects) {
      const Model = MODELS[`${o.apiVersion}/${o.kind}`];
      expect(Model, `${o.apiVersion} ${o.kind} has no validator here`).toBeDefined();
      expect(() => new Model(o as never).validate(), `${o.kind}/${o.metadata.name}`).not.toThrow();
    }
  });

  it('the schema check is real: a broken object fails it', () => {
    const broken = structuredClone(find('Deployment', 'batchwise-server')) as Obj;
    (podOf(broken).containers[0] as unknown as { ports: unknown }).ports = [{ containerPort: 'grpc-port' }];
    expect(() => new Deployment(broken as never).validate()).toThrow(/containerPort/);
  });

  it('server and workers run non-root, reach the Redis Service, and the server is probed over gRPC health', () => {
    const redisService = find('Service', 'batchwise-redis');
    const redisPort = (redisService.spec.ports as Array<{ port: number }>)[0].port;
    const server = find('Deployment', 'batchwise-server');
    const worker = find('Deployment', 'batchwise-worker');
    for (const d of [server, worker]) {
      const pod = podOf(d);
      expect(pod.securityContext?.runAsNonRoot).toBe(true);
      expect(pod.containers[0].env?.find((e) => e.name === 'BATCHWISE_REDIS')?.value).toBe(`redis://batchwise-redis:${redisPort}`);
    }
    const c = podOf(server).containers[0];
    expect(c.args?.[0]).toBe('serve');
    expect(c.readinessProbe?.grpc?.port).toBe(50051);
    expect(c.livenessProbe?.grpc?.port).toBe(50051);
    expect(podOf(worker).containers[0].args?.[0]).toBe('worker');
    const hpa = find('HorizontalPodAutoscaler', 'batchwise-worker');
    expect(hpa.spec.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: 'batchwise-worker' });
    expect(JSON.stringify(hpa.spec.metrics)).toContain('batchwise_queue_depth');
  });

  it('a headless Service beside the ClusterIP one lets gRPC clients balance over every server pod', () => {
    const plain = find('Service', 'batchwise');
    const headless = find('Service', 'batchwise-headless');
    expect(headless.spec.clusterIP).toBe('None');
    expect(headless.spec.selector).toEqual(plain.spec.selector);
    expect(JSON.stringify(headless.spec.ports)).toContain('"port":50051');
  });

  it("prometheus-adapter's rule serves the metric the worker HPA reads", () => {
    const cm = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'batchwise-prometheus-adapter') as unknown as { data: Record<string, string> };
    const config = parseAllDocuments(cm.data['config.yaml'])[0].toJS() as {
      externalRules: Array<{ seriesQuery: string; name: { as: string }; metricsQuery: string }>;
    };
    const hpa = find('HorizontalPodAutoscaler', 'batchwise-worker');
    const metric = (hpa.spec.metrics as Array<{ external: { metric: { name: string } } }>)[0].external.metric.name;
    const rule = config.externalRules.find((r) => r.name.as === metric);
    expect(rule, metric).toBeDefined();
    expect(rule!.seriesQuery).toContain(metric);
    expect(rule!.metricsQuery).toContain('<<.LabelMatchers>>');
    // The servers export exactly that metric name.
    expect(readFileSync('src/scaleout/metrics.ts', 'utf8')).toContain(`name: '${metric}'`);
  });

  it('the Dockerfile is multi-stage, runs as a non-root user, and its healthcheck uses gRPC health', () => {
    const text = readFileSync('Dockerfile', 'utf8');
    expect(text.match(/^FROM /gm)!.length).toBeGreaterThanOrEqual(2);
    expect(text).toMatch(/^USER node$/m);
    expect(text).toMatch(/^HEALTHCHECK[\s\S]*dist\/src\/scaleout\/healthcheck\.js/m);
  });

  it('.dockerignore keeps local state out of the build context', () => {
    const ignored = readFileSync('.dockerignore', 'utf8').split('\n').map((l) => l.trim());
    for (const p of ['node_modules', 'dist', 'scratch', '.git', 'test', 'coverage', 'bench/results']) expect(ignored, p).toContain(p);
  });

  it('the build stage compiles from what it copies: no source it copies imports a file outside it (or ignored)', () => {
    const text = readFileSync('Dockerfile', 'utf8');
    const build = text.split(/^FROM /m)[1]; // the first stage
    const copied = new Set(
      [...build.matchAll(/^COPY (?!--from)(.+)$/gm)].flatMap((m) => m[1].trim().split(/\s+/).slice(0, -1)),
    );
    const ignored = new Set(readFileSync('.dockerignore', 'utf8').split('\n').map((l) => l.trim()).filter(Boolean));
    const dirs = [...copied].filter((p) => !p.includes('.') && existsSync(p));
    expect(dirs).toContain('src');
    const bad: string[] = [];
    for (const dir of dirs)
      for (const f of readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))) {
        const file = `${dir}/${f}`;
        for (const m of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
          const target = relative('.', resolve(dirname(file), m[1]));
          const top = target.split('/')[0];
          const inContext = copied.has(top) && ![...ignored].some((i) => target === i || target.startsWith(`${i}/`));
          if (!inContext) bad.push(`${file} → ${target}`);
        }
      }
    expect(bad).toEqual([]);
  });
});

describe('container healthcheck', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ limits: { maxConcurrentSolves: 1 } });
  });
  afterAll(async () => h?.close());

  it('finds the port the container\'s server listens on from its command line and environment', () => {
    const argv = (...a: string[]): string => `${['node', 'bin/batchwise.js', ...a].join('\0')}\0`;
    expect(serveAddress(argv('serve', '--host', '0.0.0.0', '--insecure'), 'PATH=/bin\0')).toBe('127.0.0.1:50051');
    expect(serveAddress(argv('serve', '--host', '0.0.0.0', '--port', '6000'), '')).toBe('127.0.0.1:6000');
    expect(serveAddress(argv('serve', '--port=7000'), 'BATCHWISE_PORT=8000\0')).toBe('127.0.0.1:7000');
    expect(serveAddress(argv('serve'), 'BATCHWISE_PORT=8000\0BATCHWISE_HOST=::\0')).toBe('127.0.0.1:8000');
    expect(serveAddress(argv('serve', '--host', '10.0.0.5'), '')).toBe('10.0.0.5:50051');
    expect(serveAddress(argv('serve', '--host', 'fd00::5'), '')).toBe('[fd00::5]:50051');
    // The Dockerfile leaves the address to it.
    expect(readFileSync('Dockerfile', 'utf8')).toMatch(/^ {2}CMD \["node", "dist\/src\/scaleout\/healthcheck\.js"\]$/m);
  });

  it('reports SERVING for a running server and fails for a closed port', async () => {
    expect(await checkHealth(h.server.address)).toBe('SERVING');
    await expect(checkHealth('127.0.0.1:1', 1000)).rejects.toThrow();
  });
});

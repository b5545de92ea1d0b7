import { spawn, spawnSync } from 'node:child_process';

/**
 * A Python interpreter with grpcio and protobuf (Debian: python3-grpcio python3-protobuf), for
 * the tests that talk to the service as an outside client would. With BATCHWISE_PYTHON=required
 * (CI, which installs them) a missing one throws, failing the file; otherwise the tests are
 * skipped with the reason printed, as the GPU tests do with BATCHWISE_GPU=required.
 * BATCHWISE_PYTHON=/path/to/python picks the interpreter.
 */
export function pythonForTests(): { python?: string; skip: string } {
  const setting = process.env.BATCHWISE_PYTHON ?? '';
  const candidates = setting !== '' && setting !== 'required' ? [setting] : ['python3', '/usr/bin/python3'];
  const tried: string[] = [];
  for (const bin of candidates) {
    const r = spawnSync(bin, ['-c', 'import grpc, google.protobuf; print(grpc.__version__, google.protobuf.__version__)'], { encoding: 'utf8' });
    if (r.status === 0) return { python: bin, skip: '' };
    tried.push(`${bin}: ${r.error ? r.error.message : (r.stderr.trim().split('\n').pop() ?? `exit ${r.status}`)}`);
  }
  const reason = `no Python with grpcio and protobuf (${tried.join('; ')}); apt-get install python3-grpcio python3-protobuf`;
  if (setting === 'required') throw new Error(`BATCHWISE_PYTHON=required: ${reason}`);
  console.warn(`Python client tests skipped: ${reason} (BATCHWISE_PYTHON=required makes this a failure)`);
  return { skip: ` (skipped: ${reason})` };
}

/** Runs a Python script and parses the JSON it prints; rejects with its stderr when it fails. */
export function runPythonJson(python: string, script: string, args: readonly string[], timeoutMs = 120_000): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code !== 0) return reject(new Error(`${script} exited ${code ?? signal}:\n${err}`));
      try {
        resolve(JSON.parse(out) as unknown);
      } catch (e) {
        reject(new Error(`${script} printed no JSON (${(e as Error).message}):\n${out}\n${err}`));
      }
    });
  });
}

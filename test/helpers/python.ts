import { spawn, spawnSync } from 'node:child_process';

/**
 * A Python interpreter with grpcio and protobuf (Debian: python3-grpcio python3-protobuf), for
 * the tests that use the service as an outside client would. BATCHWISE_PYTHON, like
 * BATCHWISE_GPU: `required` (CI, which installs them) makes a missing one a failure of the file,
 * `off` skips, unset (auto) skips with the reason printed when there is none.
 * BATCHWISE_PYTHON_BIN names the interpreter (default: python3 on PATH, then /usr/bin/python3).
 */
export function pythonForTests(): { python?: string; skip: string } {
  const setting = process.env.BATCHWISE_PYTHON ?? 'auto';
  if (setting === 'off') return announce('BATCHWISE_PYTHON=off');
  const bin = process.env.BATCHWISE_PYTHON_BIN;
  const tried: string[] = [];
  for (const python of bin ? [bin] : ['python3', '/usr/bin/python3']) {
    const r = spawnSync(python, ['-c', 'import grpc, google.protobuf'], { encoding: 'utf8' });
    if (r.status === 0) return { python, skip: '' };
    tried.push(`${python}: ${r.error ? r.error.message : (r.stderr.trim().split('\n').pop() ?? `exit ${r.status}`)}`);
  }
  const reason = `no Python with grpcio and protobuf (${tried.join('; ')}); apt-get install python3-grpcio python3-protobuf`;
  if (setting === 'required') throw new Error(`BATCHWISE_PYTHON=required: ${reason}`);
  return announce(`${reason} (BATCHWISE_PYTHON=required makes this a failure)`);
}

function announce(reason: string): { skip: string } {
  console.warn(`Python client tests skipped: ${reason}`);
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

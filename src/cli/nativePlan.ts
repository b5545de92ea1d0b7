import type { SupervisePlan } from '../native/supervise.js';

/**
 * Whether a command line runs supervised, so that what native code prints (Dawn, Mesa, the
 * Vulkan loader) stays out of its stdout and stderr, and how (docs/gpu.md, "Native output").
 * Light on purpose: bin.ts calls it before loading anything else.
 */

/** The commands whose stdout is a pino JSON log stream: native lines become warn records in it. */
const LOG_COMMANDS: Record<string, string> = { serve: 'batchwise', worker: 'batchwise-worker' };
/** Commands supervised from the start: their GPU use is decided inside a server's worker threads, out of the gate's reach. */
const UP_FRONT = new Set(['serve', 'worker', 'sweep']);
/** Commands that never open a GPU. */
const NO_GPU = new Set(['completion', 'help']);
const META = new Set(['-h', '--help', '-V', '--version']);

/**
 * undefined: run in this process (Windows, where the fd handover is untested;
 * BATCHWISE_NATIVE_OUTPUT=inherit; BATCHWISE_GPU=off; under --inspect, so that the debugger gets
 * the program and not the supervisor; no command, help, version, completion; `--backend cpu`;
 * a `--server` client, which solves remotely). Otherwise serve and worker get records; every
 * other command hides native lines, or with `--verbose` or BATCHWISE_NATIVE_OUTPUT=show passes
 * them to stderr.
 */
export function nativePlan(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
  execArgv: readonly string[] = process.execArgv,
): SupervisePlan | undefined {
  const setting = (env.BATCHWISE_NATIVE_OUTPUT ?? '').trim().toLowerCase();
  if (platform === 'win32' || setting === 'inherit' || (env.BATCHWISE_GPU ?? '').trim().toLowerCase() === 'off') return undefined;
  if ([...execArgv, env.NODE_OPTIONS ?? ''].some((a) => a.includes('--inspect'))) return undefined;
  const command = args.find((a) => !a.startsWith('-'));
  if (command === undefined || NO_GPU.has(command) || args.some((a) => META.has(a))) return undefined;
  if (optionValue(args, '--backend')?.toLowerCase() === 'cpu' || optionValue(args, '--server') !== undefined) return undefined;
  // Other commands run here and are supervised only if they come to load the GPU (src/solve/nativeGate.ts).
  const when = UP_FRONT.has(command) || optionValue(args, '--backend')?.toLowerCase() === 'gpu' ? 'now' : 'on-gpu';
  if (setting === 'show') return { mode: 'raw', when };
  const logName = LOG_COMMANDS[command];
  if (logName) return { mode: 'records', logName, logLevel: optionValue(args, '--log-level') ?? env.BATCHWISE_LOG_LEVEL ?? 'info', when: 'now' };
  return { mode: args.includes('--verbose') ? 'raw' : 'hidden', when };
}

/** `--name value` or `--name=value`; the last one wins, as with commander. */
function optionValue(args: readonly string[], name: string): string | undefined {
  let v: string | undefined;
  args.forEach((a, i) => {
    if (a === name && i + 1 < args.length) v = args[i + 1];
    else if (a.startsWith(`${name}=`)) v = a.slice(name.length + 1);
  });
  return v;
}

import { installSupervisedStdio, isSupervisedChild } from '../native/stdio.js';
import { nativePlan } from './nativePlan.js';

// Native output (Dawn, Mesa, the Vulkan loader) is kept out of stdout and stderr by running
// this command line again as a supervised child (docs/gpu.md, "Native output"); the child
// moves its own output off fds 1 and 2 before anything else is loaded, hence the late import.
const plan = isSupervisedChild() ? undefined : nativePlan(process.argv.slice(2), process.env);
const supervise = async (): Promise<number | undefined> =>
  plan ? (await import('../native/supervise.js')).superviseSelf(plan, process.execArgv, process.argv.slice(1)) : undefined;
const supervised = plan?.when === 'now' ? await supervise() : undefined;
if (supervised !== undefined) {
  process.exitCode = supervised;
} else {
  installSupervisedStdio();
  if (plan?.when === 'on-gpu') {
    // About to load the GPU: run the whole command again, supervised, and leave with its result
    // (nothing has been printed yet: the GPU loads before the first solve's result).
    const { setNativeGate } = await import('../solve/nativeGate.js');
    const { stopAllStatusLines } = await import('./progress.js');
    setNativeGate(async () => {
      stopAllStatusLines();
      const code = await supervise();
      if (code !== undefined) process.exit(code);
    });
  }
  const { main } = await import('./main.js');
  process.exitCode = await main(process.argv);
}

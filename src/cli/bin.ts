import { installSupervisedStdio, isSupervisedChild } from '../native/stdio.js';
import { nativePlan } from './nativePlan.js';

// Native output (Dawn, Mesa, the Vulkan loader) is kept out of stdout and stderr by running
// this command line again as a supervised child (docs/gpu.md, "Native output"); the child
// moves its own output off fds 1 and 2 before anything else is loaded, hence the late import.
const plan = isSupervisedChild() ? undefined : nativePlan(process.argv.slice(2), process.env);
const supervised = plan ? await (await import('../native/supervise.js')).superviseSelf(plan, process.execArgv, process.argv.slice(1)) : undefined;
if (supervised !== undefined) {
  process.exitCode = supervised;
} else {
  installSupervisedStdio();
  const { main } = await import('./main.js');
  process.exitCode = await main(process.argv);
}

import { writeSync } from 'node:fs';
import { Socket } from 'node:net';
import { Writable } from 'node:stream';
import { isatty, WriteStream } from 'node:tty';

/**
 * The supervised child's side (docs/gpu.md, "Native output"). The supervisor starts the child
 * with its fds 1 and 2 on capture pipes (what native code prints lands there), the real stdout
 * and stderr on fds 3 and 4, and a lifeline on fd 5; the child's JavaScript output goes to 3
 * and 4 instead of 1 and 2.
 */

/** Set in the child's environment by the supervisor: the supervisor's pid. */
export const SUPERVISOR_ENV = 'BATCHWISE_NATIVE_SUPERVISOR';

/** The child's fds: the program's stdout and stderr, and the pipe that ends when the supervisor does. */
export const CHILD_FDS = { stdout: 3, stderr: 4, lifeline: 5 } as const;

/**
 * True in a process the supervisor started, and in its worker threads (they share the fds and
 * get a copy of the environment). The pid check keeps a grandchild that inherited the variable
 * from taking fds 3 and 4 for its own output.
 */
export function isSupervisedChild(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env[SUPERVISOR_ENV];
  return v !== undefined && v !== '' && Number(v) === process.ppid;
}

/** The fd the program's own stderr goes to (loggers that write by fd number use it). */
export function programStderrFd(): number {
  return isSupervisedChild() ? CHILD_FDS.stderr : 2;
}

/**
 * In a supervised child: points process.stdout and process.stderr (and so console, pino's
 * default destination, worker threads' forwarded output) at fds 3 and 4, and ends the process
 * when the supervisor goes away. Must run before anything writes to or caches either stream.
 * Returns whether it did anything.
 */
export function installSupervisedStdio(): boolean {
  if (!isSupervisedChild()) return false;
  replaceStream('stdout', CHILD_FDS.stdout);
  replaceStream('stderr', CHILD_FDS.stderr);
  watchSupervisor();
  return true;
}

function replaceStream(name: 'stdout' | 'stderr', fd: number): void {
  // A terminal gets what Node gives a terminal (isTTY, columns, blocking writes); a file, pipe
  // or socket gets synchronous writes, as Node's own stdout has on Linux.
  const stream = isatty(fd) ? new WriteStream(fd) : new FdWriter(fd);
  // As Node's own: pino's default destination, for one, writes to process.stdout.fd.
  Object.assign(stream, { fd, _isStdio: true });
  Object.defineProperty(process, name, { configurable: true, enumerable: true, get: () => stream });
}

function watchSupervisor(): void {
  const line = new Socket({ fd: CHILD_FDS.lifeline, readable: true, writable: false });
  let gone = false;
  const onGone = (): void => {
    if (gone) return;
    gone = true;
    // The supervisor only goes away without waiting for us when it was killed outright (its
    // signals are passed on, it never exits first otherwise): so were we, as one process would
    // have been. Never a graceful shutdown, which would let a "crashed" worker finish its chunk.
    process.kill(process.pid, 'SIGKILL');
  };
  line.on('end', onGone);
  line.on('error', onGone);
  line.resume();
  line.unref();
}

/** Synchronous writes to an fd the stream does not own (never closed by it). */
class FdWriter extends Writable {
  readonly isTTY = false;
  constructor(public fd: number) {
    super();
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, done: (e?: Error | null) => void): void {
    try {
      writeAllSync(this.fd, chunk);
      done();
    } catch (e) {
      done(e as Error);
    }
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/** Writes all of data to fd, waiting out EAGAIN (an fd shared with a process that made it non-blocking). */
export function writeAllSync(fd: number, data: string | Uint8Array): void {
  const buf = typeof data === 'string' ? Buffer.from(data) : data;
  let off = 0;
  while (off < buf.length) {
    try {
      off += writeSync(fd, buf, off, buf.length - off);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}

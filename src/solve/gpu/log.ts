import { pino, type Logger } from 'pino';
import { programStderrFd } from '../../native/stdio.js';

/**
 * The GPU solver's logger. GPU trouble (device loss, validation errors, fallbacks) is logged
 * here and never fails a request. Lines go to stderr so that CLI output on stdout stays clean;
 * the service (or a test) installs its own logger with setGpuLogger.
 */
let logger: Logger = pino({ name: 'batchwise-gpu', level: process.env.LOG_LEVEL ?? 'info' }, pino.destination({ fd: programStderrFd(), sync: true }));

export function gpuLogger(): Logger {
  return logger;
}

export function setGpuLogger(l: Logger): void {
  logger = l;
}

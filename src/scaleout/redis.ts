import { Redis } from 'ioredis';
import { Code, ServiceError } from '../service/rpc/status.js';

/** How long a Redis round trip may take before the caller is told UNAVAILABLE (never a hang). */
export const DEFAULT_REDIS_TIMEOUT_MS = 3000;

/**
 * A client as BullMQ wants it (`maxRetriesPerRequest: null`: its blocking commands must not be
 * failed by ioredis). That setting also means a command sent while Redis is down waits for the
 * reconnect forever, so every call site bounds it with `withTimeout`.
 */
export function connectRedis(url: string, onError?: (e: Error) => void): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: null,
    connectTimeout: DEFAULT_REDIS_TIMEOUT_MS,
    // Reconnect with a capped backoff; callers time out on their own.
    retryStrategy: (times) => Math.min(100 * times, 2000),
  });
  // Without a listener ioredis prints "Unhandled error event" for each failed reconnect.
  redis.on('error', (e: Error) => onError?.(e));
  return redis;
}

export function redisUnavailable(what: string): ServiceError {
  return new ServiceError(Code.UNAVAILABLE, `Redis unreachable: ${what}`);
}

/** Redis answers but no longer holds the batch: it restarted empty, was flushed or evicted the batch's keys. */
export function redisLostBatch(unanswered: number, total: number): ServiceError {
  return new ServiceError(
    Code.UNAVAILABLE,
    `Redis lost the batch's state (restarted without persistence, flushed or evicted), so ${unanswered} of ${total} queued scenarios will not be solved; call again`,
  );
}

/** Resolves as `p` does, or rejects with UNAVAILABLE after `ms`. */
export async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(redisUnavailable(`${what} took longer than ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Closes a client without waiting on a dead server. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'end') return;
  try {
    await withTimeout(redis.quit(), 1000, 'quit');
  } catch {
    redis.disconnect();
  }
}

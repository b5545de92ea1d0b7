/** The gRPC service's public surface: server, client, extension points. */
export { BatchwiseServer, type ServerOptions } from './server.js';
export { BatchwiseClient, RemoteError, type ClientOptions, type ClientTls, type CallOptions } from './client.js';
export { DEFAULT_LIMITS, type ServiceLimits } from './config.js';
export { ConfigError, type ServerTls } from './tls.js';
export {
  registerBatchExecutor,
  type BatchExecutor,
  type BatchTask,
  type BatchOutcome,
  type BatchContext,
} from './batch/executor.js';
export type * from './messages.js';

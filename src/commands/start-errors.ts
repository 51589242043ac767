// What `portico` says when it cannot start or reach a store: one line naming the resource and the fix.
import type { Config } from '../config/config.js';
import { SchemaError } from '../adapters/sql/migration-runner.js';
import { AppError } from '../errors.js';
import { CliError } from './output.js';

/**
 * A failure to start, as one line naming the resource and the fix: the port in use or forbidden, the
 * PostgreSQL server that does not answer (with its host and port, which the HTTP answers never name).
 */
export function explained(error: unknown, config: Readonly<Config>): unknown {
  const { code, syscall, port } = (error ?? {}) as NodeJS.ErrnoException & { port?: number };
  // The public listener, or the metrics one (whose port differs unless both are 0).
  const [name, host, listening] = config.metrics && port === config.metrics.port ? ['METRICS_PORT', 'METRICS_HOST', config.metrics] : ['PORT', 'HOST', config];
  if (syscall === 'listen' && code === 'EADDRINUSE') {
    return new CliError(`port ${listening.port} on ${listening.host} is already in use: stop what listens there, or set ${name} (or ${host}) to another`);
  }
  if (syscall === 'listen' && code === 'EACCES') {
    return new CliError(`may not listen on port ${listening.port} on ${listening.host}: use a port above 1023 (a proxy or the container maps 80 and 443), or set ${host}`);
  }
  if (error instanceof AppError && error.code === 'store_unavailable' && config.database.engine === 'postgres') {
    const url = new URL(config.database.url);
    const cause = (error.cause as { code?: string } | undefined)?.code;
    return new CliError(`the PostgreSQL server at ${url.hostname}:${url.port || '5432'} does not answer${cause ? ` (${cause})` : ''}: start it, or correct DATABASE_URL`);
  }
  if (error instanceof SchemaError) return new CliError(error.message);
  return error;
}

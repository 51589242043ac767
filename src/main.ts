// `portico serve`: environment -> config -> deps -> listen, and a graceful shutdown on SIGTERM/SIGINT.
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { buildDeps } from './deps.js';

export async function serve(config: Readonly<Config>): Promise<void> {
  const deps = await buildDeps(config);
  const app = await buildApp(deps);
  await app.listen({ port: config.port, host: config.host });
  app.log.info({ publicUrl: config.publicUrl, env: config.appEnv, database: config.database.engine, mail: config.smtpUrl ? 'smtp' : 'outbox' }, 'portico is serving');

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    await app.close();
    await deps.close();
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

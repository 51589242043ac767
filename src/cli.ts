#!/usr/bin/env -S node --heap-growing-percent=25 --v8-pool-size=1 --no-allocation-site-pretenuring --no-compact-code-space
// The `portico` command: parses argv, loads the configuration once, dispatches, sets the exit code.
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { buildApp } from './app.js';
import { publicOrigin } from './public-origin.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { AppError } from './errors.js';
import { buildDeps, OUTBOX_DIR, type Deps } from './deps.js';
import { listClients, revokeClient } from './commands/clients.js';
import { listInquiries, purgeInquiries, resendInquiry } from './commands/inquiries.js';
import { CliError, textOutput, type Output } from './commands/output.js';
import { openToOthers } from './commands/permissions.js';
import { eraseInquiries, exportInquiries } from './commands/personal-data.js';
import { serve } from './main.js';

const USAGE = `usage: portico <command>

  serve                               serve the API (npm start)
  migrate                             apply pending database migrations
  clients list [--limit N] [--json]    registered OAuth clients
  clients revoke ID                   delete a client and every token it holds
  inquiries list [--status S] [--limit N] [--json]
  inquiries resend ID [--force]       send a stored inquiry's e-mail again
  inquiries resend --failed [--since DURATION]
                                      send every failed inquiry (received within DURATION: 30m, 24h, 7d)
  inquiries purge --older-than DAYS [--dry-run]
                                      delete inquiries older than DAYS days, with their outbox copies
  inquiries export --email ADDRESS    every inquiry from ADDRESS, as JSON (access, portability)
  inquiries erase --email ADDRESS | --id ID [--dry-run]
                                      delete them and their outbox copies (erasure)
  openapi [--yaml]                    print the OpenAPI document
  check                               validate the configuration and reach the stores`;

const OPTIONS = {
  status: { type: 'string' },
  limit: { type: 'string' },
  json: { type: 'boolean' },
  force: { type: 'boolean' },
  failed: { type: 'boolean' },
  since: { type: 'string' },
  'older-than': { type: 'string' },
  'dry-run': { type: 'boolean' },
  email: { type: 'string' },
  id: { type: 'string' },
  yaml: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

async function run(argv: string[], env: NodeJS.ProcessEnv, out: Output): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  const [command, sub, arg] = positionals;
  if (values.help || command === undefined || command === 'help') return out.line(USAGE);
  const config = loadConfig(env);
  try {
    return await dispatch(command, sub, arg, values, positionals, config, out);
  } catch (error) {
    throw explained(error, config);
  }
}

/**
 * A failure to start, as one line naming the resource and the fix: the port in use or forbidden, the
 * PostgreSQL server that does not answer (with its host and port, which the HTTP answers never name).
 */
function explained(error: unknown, config: Readonly<Config>): unknown {
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
  return error;
}

async function dispatch(
  command: string,
  sub: string | undefined,
  arg: string | undefined,
  values: ReturnType<typeof parseArgs<{ args: string[]; options: typeof OPTIONS; allowPositionals: true; strict: true }>>['values'],
  positionals: string[],
  config: Readonly<Config>,
  out: Output,
): Promise<void> {
  if (command === 'serve') return serve(config);
  if (command === 'openapi') {
    // The same document the server serves, built on a throwaway in-memory database.
    return withDeps({ ...config, database: { engine: 'sqlite', path: ':memory:' }, logLevel: 'silent' }, async (deps) => {
      const app = await buildApp(deps);
      const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
      await app.close();
      // Loaded here only: `portico serve` starts without it (docs/performance.md, "Start").
      const yaml = values.yaml ? await import('yaml') : undefined;
      out.line(yaml ? yaml.stringify(document, { aliasDuplicateObjects: false }).trimEnd() : JSON.stringify(document, null, 2));
    });
  }
  // Commands report their own outcome; log lines would only repeat it.
  const quiet = { ...config, logLevel: 'fatal' };
  if (command === 'migrate') return withDeps(quiet, async () => out.line('database is up to date'));
  if (command === 'check') return withDeps(quiet, (deps) => check(deps, out));
  if (command === 'clients') {
    if (sub === 'list') return withDeps(quiet, (deps) => listClients(deps, out, values));
    if (sub === 'revoke') return withDeps(quiet, (deps) => revokeClient(deps, out, arg));
  }
  if (command === 'inquiries') {
    if (sub === 'list') return withDeps(quiet, (deps) => listInquiries(deps, out, values));
    if (sub === 'resend') return withDeps(quiet, (deps) => resendInquiry(deps, out, arg, values));
    if (sub === 'purge') return withDeps(quiet, (deps) => purgeInquiries(deps, out, { olderThan: values['older-than'], dryRun: values['dry-run'] }));
    if (sub === 'export') return withDeps(quiet, (deps) => exportInquiries(deps, out, values));
    if (sub === 'erase') return withDeps(quiet, (deps) => eraseInquiries(deps, out, { email: values.email, id: values.id, dryRun: values['dry-run'] }));
  }
  throw new CliError(`unknown command: ${positionals.join(' ')}\n${USAGE}`);
}

/** Builds the deps (which applies migrations), runs `task`, and always closes them. */
async function withDeps(config: Readonly<Config>, task: (deps: Deps) => Promise<void>): Promise<void> {
  // Log lines go to stderr, so stdout carries only the command's own output.
  const deps = await buildDeps(config, { logDestination: pino.destination(2) });
  try {
    await task(deps);
  } finally {
    await deps.close();
  }
}

async function check(deps: Deps, out: Output): Promise<void> {
  const { config } = deps;
  await deps.inquiries.ping();
  out.line(`environment   ${config.appEnv} at ${config.publicUrl}`);
  out.line(`clients       ${clientsLine(config.publicUrl)}`);
  out.line(`database      ${config.database.engine}: answers, migrations applied`);
  const { smtp, webhook } = config.delivery;
  if (deps.mailer) {
    try {
      await deps.mailer.verify();
    } catch (error) {
      throw new CliError(`mail: ${smtp ? `SMTP server ${smtp.host}:${smtp.port}` : 'outbox folder'} not usable: ${(error as Error).message}`);
    }
    out.line(`mail          ${smtp ? `SMTP server ${smtp.host}:${smtp.port} answers${smtp.user ? ` and signs in ${smtp.user}` : ''}` : 'outbox folder data/outbox (development)'}; to ${config.mailTo.address}`);
  }
  // Not called: any request to it would be an event the receiver has to handle.
  if (webhook) out.line(`webhook       ${new URL(webhook.url).origin} (signed, Standard Webhooks; not called by check)`);
  out.line(`turnstile     ${config.turnstile ? `enabled (${config.turnstile.verifyUrl})` : 'disabled'}`);
  const limits = Object.entries(config.rateLimits).map(([name, l]) => `${name}=${l ? `${l.max}/${l.windowSeconds}s` : 'off'}`);
  out.line(`rate limits   ${limits.join(' ')}`);
  // A warning, not a failure: the files were made by an earlier version or by hand, and still work.
  const wide = await openToOthers(config.database.engine === 'sqlite' ? config.database.path : undefined, deps.mailer && !smtp ? OUTBOX_DIR : undefined);
  for (const problem of wide) out.line(`permissions   warning: personal data readable by others: ${problem}`);
  if (!wide.length) out.line(`permissions   data files are the owner's alone (folders 0700, files 0600)`);
  out.line('ok');
}

/**
 * `.env` in the working directory, when there is one (.env.example lists every setting): the real
 * environment wins, as process.loadEnvFile leaves set variables alone.
 */
async function loadDotEnv(): Promise<void> {
  try {
    process.loadEnvFile('.env');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new CliError(`.env: ${(error as Error).message}`);
  }
}

/** The address clients must use: the one the metadata names (RFC 9728 section 3.3), not an alias that also answers. */
function clientsLine(publicUrl: string): string {
  const aliases = [...publicOrigin(publicUrl).hosts].filter((host) => host !== new URL(publicUrl).host);
  const also = aliases.length ? `; ${aliases.join(' and ')} answer too, but OAuth clients refuse metadata for another address` : '';
  return `connect at ${publicUrl} (MCP: ${publicUrl}/mcp), the address the OAuth metadata names${also}`;
}

// A reader that stops early (`portico openapi | head`) closes the pipe: the rest of the output is not
// wanted, so the command goes on quietly, as Unix tools do, instead of dying on an unhandled EPIPE.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});
const out = textOutput((text) => process.stdout.write(text));
loadDotEnv()
  .then(() => run(process.argv.slice(2), process.env, out))
  .catch((error: unknown) => {
    if (error instanceof ConfigError) for (const problem of error.problems) process.stderr.write(`portico: invalid configuration: ${problem}\n`);
    else if (error instanceof CliError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`portico: ${(error as Error).message}\n`);
    } else if (error instanceof AppError && error.code === 'store_unavailable') {
      // An outage, not a bug: one line an operator can act on.
      process.stderr.write(`portico: ${error.description}\n`);
    } else process.stderr.write(`portico: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  });

#!/usr/bin/env -S node --heap-growing-percent=25 --v8-pool-size=1 --no-allocation-site-pretenuring --no-compact-code-space --max-semi-space-size=16 --no-maglev
// The `portico` command: commander parses argv (help per command with an example, suggestions for
// mistyped commands and options, --version); each command reads the configuration once; every
// failure ends as lines starting `portico:` on stderr and exit code 1.
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { pino } from 'pino';
import { ConfigError, loadConfig, type Config } from './config/config.js';
import { AppError } from './errors.js';
import { buildDeps, type Deps } from './deps.js';
import { yieldCpuToServers } from './commands/background-priority.js';
import { check } from './commands/check.js';
import { migrate } from './commands/migrate.js';
import { listClients, revokeClient } from './commands/clients.js';
import { listInquiries, purgeInquiries, releaseInquiry, resendInquiry, showInquiry } from './commands/inquiries.js';
import { CliError, textOutput, type Output } from './commands/output.js';
import { eraseInquiries, exportInquiries } from './commands/personal-data.js';
import { explained } from './commands/start-errors.js';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

const example = (...lines: string[]) => `\nExample${lines.length > 1 ? 's' : ''}:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;

/** `out` carries a command's output (stdout); `notes`, what is said about it beside (stderr). */
function program(env: NodeJS.ProcessEnv, out: Output, notes: Output): Command {
  /** The command's work with the configuration read now, its start-up failures explained. */
  const configured = async (task: (config: Readonly<Config>) => Promise<void>) => {
    const config = loadConfig(env);
    try {
      await task(config);
    } catch (error) {
      throw explained(error, config);
    }
  };
  // Commands report their own outcome; log lines would only repeat it. Only serve and migrate change the
  // schema (D22): the others refuse a database this release has not migrated.
  const stored = (task: (deps: Deps) => Promise<void>) => configured((config) => withDeps({ ...config, logLevel: 'fatal' }, task, 'require'));

  const root = new Command('portico')
    .description('Portico: the contact, MCP and OAuth API of the product site, and the commands that look after it.\nEvery command reads the environment (and .env) as the server does.')
    .version(version, '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show help for a command')
    .showSuggestionAfterError()
    .exitOverride()
    .configureOutput({
      writeOut: (text) => process.stdout.write(text),
      writeErr: (text) => process.stderr.write(text),
      outputError: (text, write) => write(text.replace(/^error: /, 'portico: ')),
    })
    .addHelpText(
      'after',
      `${example('portico check', 'portico doctor https://api.example.com', 'portico inquiries list --status failed', 'portico inquiries --help')}\nExit codes: 0 done; 1 refused or failed (a usage mistake, the configuration, a store, a delivery still failing); portico doctor: 2 when the URL cannot be reached.\n`,
    );

  root
    .command('serve')
    .description('serve the API (what npm start runs); SIGTERM or SIGINT finish in-flight requests, then exit')
    .addHelpText('after', example('PORT=8080 portico serve'))
    // The server's modules load only for the commands that need them: the data commands stay small.
    .action(() => configured(async (config) => (await import('./main.js')).serve(config)));
  root
    .command('migrate')
    .description("apply this release's database migrations: the schema changes, then the backfills to their end (a serving node of this release does both by itself)")
    .addHelpText('after', example('DATABASE_URL=postgres://portico@db/portico portico migrate'))
    .action(() => configured((config) => withDeps({ ...config, logLevel: 'fatal' }, (deps) => migrate(deps, out), 'migrate')));
  root
    .command('check')
    .description('validate the configuration, reach the database, sign in to the mail relay, print a summary')
    .addHelpText('after', example('APP_ENV=production portico check'))
    .action(() => configured((config) => check(config, out)));
  root
    .command('doctor')
    .description('check a running deployment from outside, as MCP hosts will: a line per check with what to fix; it creates nothing on the server')
    .argument('[url]', "the deployment's address (PUBLIC_URL by default)")
    .option('--origin <origin>', 'a site whose pages post to /api/contact: its CORS preflight is checked (repeatable)', (value: string, previous: string[] | undefined) => [...(previous ?? []), value])
    .option('--json', 'the findings as one JSON document')
    .option('--timeout <seconds>', "each request's budget, as hosts give it", String(10))
    .addHelpText(
      'after',
      `${example('portico doctor', 'portico doctor https://api.example.com --origin https://www.example.com')}\nExit codes: 0 every check passed (warnings allowed); 1 a check failed; 2 the URL could not be reached.\n`,
    )
    // The URL given needs no configuration; without one, PUBLIC_URL is read as every command reads it.
    .action(async (url: string | undefined, options: { origin?: string[]; json?: boolean; timeout: string }) => {
      const address = url ?? loadConfig(env).publicUrl;
      process.exitCode = await (await import('./commands/doctor/doctor.js')).doctor(address, options, out, notes);
    });
  root
    .command('openapi')
    .description('print the OpenAPI document the server serves')
    .option('--yaml', 'as YAML instead of JSON')
    .addHelpText('after', example('portico openapi --yaml > openapi.yaml'))
    .action((options: { yaml?: boolean }) => configured((config) => printOpenApi(config, out, options.yaml === true)));

  const clients = root.command('clients').description('registered OAuth clients: list, revoke');
  clients
    .command('list')
    .description('registered OAuth clients, newest first (never their secrets)')
    .option('--limit <n>', 'at most N clients', '100')
    .option('--json', 'one JSON document per line')
    .addHelpText('after', example('portico clients list --limit 20'))
    .action((options: { limit: string; json?: boolean }) => stored((deps) => listClients(deps, out, options)));
  // Client ids are base64url: one in 32 begins with '-', and must reach the command as the id, not as an option.
  clients
    .command('revoke')
    .description('delete a client with its codes, grants and tokens')
    .argument('<id>', 'the client_id')
    .allowUnknownOption()
    .addHelpText('after', example('portico clients revoke s6BhdRkqt3M5pJ0bWkQx2A'))
    .action((id: string) => stored((deps) => revokeClient(deps, out, id)));

  const inquiries = root.command('inquiries').description('stored inquiries: list, show, resend, release, purge, export, erase');
  // These walk and delete rows by the thousand, most often beside a serving node: at the lowest CPU
  // priority (nice 19), the node's requests go first wherever the two compete for a core, and the
  // command takes the time that is left (docs/design.md, "Bulk commands yield the CPU").
  inquiries.hook('preAction', yieldCpuToServers);
  inquiries
    .command('list')
    .description('stored inquiries, newest first')
    .option('--status <status>', 'only pending, sent, failed, spam or duplicate')
    .option('--topic <topic>', 'only sales, demo, support or general (those without a topic)')
    .option('--limit <n>', 'at most N inquiries', '50')
    .option('--format <format>', 'table, json (one array), ndjson (one per line) or csv', 'table')
    .option('--json', 'the same as --format ndjson')
    .addHelpText('after', example('portico inquiries list --status failed', 'portico inquiries list --topic demo', 'portico inquiries list --limit 10000 --format csv > inquiries.csv'))
    .action((options: { status?: string; topic?: string; limit: string; format: string; json?: boolean }) =>
      stored((deps) => listInquiries(deps, out, { ...options, format: options.json ? 'ndjson' : options.format })),
    );
  inquiries
    .command('show')
    .description('one inquiry, whole, with the reasons screening gave it')
    .argument('[id]', 'the inquiry id')
    .option('--format <format>', 'text or json', 'text')
    .addHelpText('after', example('portico inquiries show 0190f3a0-...'))
    .action((id: string | undefined, options: { format: string }) => stored((deps) => showInquiry(deps, out, id, options)));
  inquiries
    .command('resend')
    .description('send a stored inquiry again, or every failed one with --failed')
    .argument('[id]', 'the inquiry id')
    .option('--force', 'send one that was already sent')
    .option('--failed', 'every failed inquiry, a page at a time')
    .option('--since <duration>', 'with --failed: only those received within it (30m, 24h, 7d)')
    .addHelpText('after', example('portico inquiries resend --failed --since 24h', 'portico inquiries resend 0190f3a0-... --force'))
    .action((id: string | undefined, options: { force?: boolean; failed?: boolean; since?: string }) => stored((deps) => resendInquiry(deps, out, id, options)));
  inquiries
    .command('release')
    .description('deliver an inquiry kept as spam (a false positive), once')
    .argument('[id]', 'the inquiry id')
    .addHelpText('after', example('portico inquiries list --status spam', 'portico inquiries release 0190f3a0-...'))
    .action((id: string | undefined) => stored((deps) => releaseInquiry(deps, out, id)));
  inquiries
    .command('purge')
    .description('delete inquiries older than DAYS days, with their outbox copies')
    .option('--older-than <days>', 'age in days (0: all)')
    .option('--dry-run', 'count them, delete nothing')
    .addHelpText('after', example('portico inquiries purge --older-than 365 --dry-run'))
    .action((options: { olderThan?: string; dryRun?: boolean }) => stored((deps) => purgeInquiries(deps, out, options)));
  inquiries
    .command('export')
    .description('every inquiry from an address as one JSON document (a request of access or portability)')
    .option('--email <address>', "the submitter's address, in any case (docs/deploy.md, 'Personal data')")
    .addHelpText('after', example('portico inquiries export --email ana@example.com > ana.json'))
    .action((options: { email?: string }) => stored((deps) => exportInquiries(deps, out, notes, options)));
  inquiries
    .command('erase')
    .description("delete an address's inquiries (or one by id) and their outbox copies (a request of erasure)")
    .option('--email <address>', "the submitter's address, in any case (docs/deploy.md, 'Personal data')")
    .option('--id <id>', 'one inquiry')
    .option('--dry-run', 'list them, delete nothing')
    .addHelpText('after', example('portico inquiries erase --email ana@example.com --dry-run'))
    .action((options: { email?: string; id?: string; dryRun?: boolean }) => stored((deps) => eraseInquiries(deps, out, options)));
  return root;
}

/** The same document the server serves, built on a throwaway in-memory database. */
async function printOpenApi(config: Readonly<Config>, out: Output, asYaml: boolean): Promise<void> {
  await withDeps({ ...config, database: { engine: 'sqlite', path: ':memory:' }, logLevel: 'silent' }, async (deps) => {
    const app = await (await import('./app.js')).buildApp(deps);
    const document: unknown = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    await app.close();
    // Loaded here only: `portico serve` starts without it (docs/performance.md, "Start").
    const yaml = asYaml ? await import('yaml') : undefined;
    out.line(yaml ? yaml.stringify(document, { aliasDuplicateObjects: false }).trimEnd() : JSON.stringify(document, null, 2));
  });
}

/** Builds the deps (`schema` says what becomes of a schema not migrated), runs `task`, and always closes them. */
async function withDeps(config: Readonly<Config>, task: (deps: Deps) => Promise<void>, schema: 'migrate' | 'require' = 'migrate'): Promise<void> {
  // Log lines go to stderr, so stdout carries only the command's own output.
  const deps = await buildDeps(config, { logDestination: pino.destination(2), schema });
  try {
    await task(deps);
  } finally {
    await deps.close();
  }
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

async function run(argv: string[], out: Output, notes: Output): Promise<void> {
  const root = program(process.env, out, notes);
  // Bare `portico` is a request for help, not a mistake.
  if (argv.length === 0) return root.outputHelp();
  try {
    await root.parseAsync(argv, { from: 'user' });
  } catch (error) {
    // Help and --version end the parse with code 0; a usage mistake was already printed by commander.
    if (error instanceof CommanderError) process.exitCode = error.exitCode;
    else throw error;
  }
}

// A reader that stops early (`portico openapi | head`) closes the pipe: the rest of the output is not
// wanted, so the command goes on quietly, as Unix tools do, instead of dying on an unhandled EPIPE.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});
const out = textOutput(process.stdout);
loadDotEnv()
  .then(() => run(process.argv.slice(2), out, textOutput(process.stderr)))
  .catch((error: unknown) => {
    if (error instanceof ConfigError) for (const problem of error.problems) process.stderr.write(`portico: invalid configuration: ${problem}\n`);
    else if (error instanceof CliError) process.stderr.write(`portico: ${error.message}\n`);
    else if (error instanceof AppError && error.code === 'store_unavailable') {
      // An outage, not a bug: one line an operator can act on.
      process.stderr.write(`portico: ${error.description}\n`);
    } else process.stderr.write(`portico: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  });

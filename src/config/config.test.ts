// loadConfig(env): every variable of the operator interface, its default, and the one-line error for each bad value.
import { describe, expect, it } from 'vitest';
import { CLOUDFLARE_SITEVERIFY_URL, ConfigError, loadConfig } from './config.js';
import { DEFAULT_RATE_LIMITS } from './rate-limits.js';

type Env = Record<string, string | undefined>;

/** The ConfigError loadConfig throws for `env`, checked to be one line that starts with `variable`. */
function configError(env: Env, variable: string): ConfigError {
  let caught: unknown;
  try {
    loadConfig(env);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ConfigError);
  const { message } = caught as ConfigError;
  expect(message.split(/\r?\n/)).toHaveLength(1);
  expect(message.startsWith(`${variable} `)).toBe(true);
  return caught as ConfigError;
}

const PRODUCTION: Env = {
  APP_ENV: 'production',
  PUBLIC_URL: 'https://api.portico.example',
  SMTP_URL: 'smtps://mailer:s3cret@smtp.portico.example:465',
  MAIL_FROM: 'Portico <no-reply@portico.example>',
  MAIL_TO: 'Sales <sales@portico.example>',
};

describe('loadConfig defaults', () => {
  const config = loadConfig({});

  it('listens on 127.0.0.1:3000', () => {
    expect(config.port).toBe(3000);
    expect(config.host).toBe('127.0.0.1');
  });

  it('uses http://localhost:$PORT as PUBLIC_URL, following PORT', () => {
    expect(config.publicUrl).toBe('http://localhost:3000');
    expect(loadConfig({ PORT: '8080' }).publicUrl).toBe('http://localhost:8080');
  });

  it('leaves SANDBOX_URL, REDIS_URL and SMTP_URL unset', () => {
    expect(config.sandboxUrl).toBeUndefined();
    expect(config.redisUrl).toBeUndefined();
    expect(config.delivery.smtp).toBeUndefined();
  });

  it('runs as development on sqlite:./data/portico.sqlite', () => {
    expect(config.appEnv).toBe('development');
    expect(config.database).toEqual({ engine: 'sqlite', path: './data/portico.sqlite' });
  });

  it('has a local sender and team inbox outside production', () => {
    expect(config.mailFrom).toEqual({ name: 'Portico', address: 'portico@localhost' });
    expect(config.mailTo).toEqual({ name: 'Portico team', address: 'team@localhost' });
  });

  it('disables Turnstile and trusts no proxy', () => {
    expect(config.turnstile).toBeUndefined();
    expect(config.trustProxy).toBe(false);
  });

  it('allows only the PUBLIC_URL origin for /api/contact and /mcp', () => {
    expect(config.contactAllowedOrigins).toEqual(['http://localhost:3000']);
    expect(config.mcpAllowedOrigins).toEqual(['http://localhost:3000']);
    const behindPath = loadConfig({ PUBLIC_URL: 'https://www.portico.example/integration/' });
    expect(behindPath.contactAllowedOrigins).toEqual(['https://www.portico.example']);
    expect(behindPath.mcpAllowedOrigins).toEqual(['https://www.portico.example']);
  });

  it('applies the default rate limits (their values: rate-limits.test.ts)', () => {
    expect(config.rateLimits).toEqual(DEFAULT_RATE_LIMITS);
  });

  it('logs at info', () => {
    expect(config.logLevel).toBe('info');
  });

  it('treats empty and blank variables as unset', () => {
    expect(loadConfig({ PORT: '', HOST: '  ', APP_ENV: '', LOG_LEVEL: ' ' })).toMatchObject({ port: 3000, host: '127.0.0.1', appEnv: 'development', logLevel: 'info' });
  });

  it('returns a frozen object', () => {
    expect(Object.isFrozen(config)).toBe(true);
    expect(() => {
      (config as { port: number }).port = 1;
    }).toThrow(TypeError);
  });
});

describe('loadConfig with values set', () => {
  it('reads PORT, HOST, PUBLIC_URL and SANDBOX_URL, dropping a trailing slash from base URLs', () => {
    const config = loadConfig({ PORT: '8443', HOST: '0.0.0.0', PUBLIC_URL: 'https://api.portico.example/', SANDBOX_URL: 'https://sandbox.portico.example/' });
    expect(config).toMatchObject({ port: 8443, host: '0.0.0.0', publicUrl: 'https://api.portico.example', sandboxUrl: 'https://sandbox.portico.example' });
  });

  it('accepts each APP_ENV', () => {
    expect(loadConfig({ APP_ENV: 'sandbox' }).appEnv).toBe('sandbox');
    expect(loadConfig(PRODUCTION).appEnv).toBe('production');
  });

  it('reads sqlite paths and postgres URLs from DATABASE_URL', () => {
    expect(loadConfig({ DATABASE_URL: 'sqlite:/var/lib/portico/p.sqlite' }).database).toEqual({ engine: 'sqlite', path: '/var/lib/portico/p.sqlite' });
    expect(loadConfig({ DATABASE_URL: 'sqlite:///var/lib/portico/p.sqlite' }).database).toEqual({ engine: 'sqlite', path: '/var/lib/portico/p.sqlite' });
    const url = 'postgres://portico:pw@db.internal:5432/portico';
    expect(loadConfig({ DATABASE_URL: url }).database).toEqual({ engine: 'postgres', url });
  });

  it('reads REDIS_URL and SMTP_URL (smtp:// and smtps://)', () => {
    expect(loadConfig({ REDIS_URL: 'redis://cache.internal:6379' }).redisUrl).toBe('redis://cache.internal:6379');
    expect(loadConfig({ SMTP_URL: 'smtp://user:pass@mail.internal:587' }).delivery.smtp).toMatchObject({ host: 'mail.internal', port: 587, implicitTls: false, user: 'user', password: 'pass' });
    expect(loadConfig({ SMTP_URL: 'smtps://user:pass@mail.internal:465' }).delivery.smtp).toMatchObject({ host: 'mail.internal', port: 465, implicitTls: true });
  });

  it("sends each topic's inquiries to its MAIL_TO_ mailbox, and the topics without one to MAIL_TO", () => {
    const config = loadConfig({ MAIL_TO: 'Team <team@portico.example>', MAIL_TO_DEMO: 'Demos <demos@portico.example>', MAIL_TO_SUPPORT: 'help@portico.example' });
    expect(config.mailToByTopic).toEqual({
      sales: { name: 'Team', address: 'team@portico.example' },
      demo: { name: 'Demos', address: 'demos@portico.example' },
      support: { name: '', address: 'help@portico.example' },
    });
  });

  it('reads MAIL_FROM and MAIL_TO with or without a display name', () => {
    const config = loadConfig({ MAIL_FROM: 'Portico <no-reply@portico.example>', MAIL_TO: 'sales@portico.example' });
    expect(config.mailFrom).toEqual({ name: 'Portico', address: 'no-reply@portico.example' });
    expect(config.mailTo).toEqual({ name: '', address: 'sales@portico.example' });
  });

  it('enables Turnstile with both keys, on Cloudflare siteverify unless TURNSTILE_VERIFY_URL is set', () => {
    const keys = { TURNSTILE_SITE_KEY: '0x4AAAAAAAsite', TURNSTILE_SECRET_KEY: '0x4AAAAAAAsecret' };
    expect(loadConfig(keys).turnstile).toEqual({ siteKey: '0x4AAAAAAAsite', secretKey: '0x4AAAAAAAsecret', verifyUrl: CLOUDFLARE_SITEVERIFY_URL });
    expect(CLOUDFLARE_SITEVERIFY_URL).toBe('https://challenges.cloudflare.com/turnstile/v0/siteverify');
    const local = loadConfig({ ...keys, TURNSTILE_VERIFY_URL: 'http://127.0.0.1:9999/siteverify' });
    expect(local.turnstile?.verifyUrl).toBe('http://127.0.0.1:9999/siteverify');
  });

  it('reads TRUST_PROXY as a hop count or a list of addresses, CIDRs and keywords', () => {
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.7,loopback,fd00::/8' }).trustProxy).toEqual(['10.0.0.0/8', '192.168.1.7', 'loopback', 'fd00::/8']);
  });

  it('reads CONTACT_ALLOWED_ORIGINS and MCP_ALLOWED_ORIGINS as origin lists, and * for /mcp', () => {
    const config = loadConfig({ CONTACT_ALLOWED_ORIGINS: 'https://www.portico.example, https://portico.example/', MCP_ALLOWED_ORIGINS: 'https://app.example' });
    expect(config.contactAllowedOrigins).toEqual(['https://www.portico.example', 'https://portico.example']);
    expect(config.mcpAllowedOrigins).toEqual(['https://app.example']);
    expect(loadConfig({ MCP_ALLOWED_ORIGINS: '*' }).mcpAllowedOrigins).toBe('*');
  });

  it('reads RATE_LIMITS and LOG_LEVEL', () => {
    const config = loadConfig({ RATE_LIMITS: 'contact=2/m', LOG_LEVEL: 'debug' });
    expect(config.rateLimits.contact).toEqual({ max: 2, windowSeconds: 60 });
    expect(config.rateLimits.token).toEqual({ max: 30, windowSeconds: 60 });
    expect(config.logLevel).toBe('debug');
    expect(Object.values(loadConfig({ RATE_LIMITS: 'off' }).rateLimits).every((limit) => limit === undefined)).toBe(true);
  });
});

describe('loadConfig refuses a bad value with one line naming the variable', () => {
  it.each<[string, Env, string]>([
    ['PORT is not a number', { PORT: 'abc' }, 'PORT'],
    ['PORT is above 65535', { PORT: '70000' }, 'PORT'],
    ['PORT is negative', { PORT: '-1' }, 'PORT'],
    ['PUBLIC_URL carries a query', { PUBLIC_URL: 'https://api.portico.example/?x=1' }, 'PUBLIC_URL'],
    ['PUBLIC_URL carries a fragment', { PUBLIC_URL: 'https://api.portico.example/#top' }, 'PUBLIC_URL'],
    ['PUBLIC_URL is not http(s)', { PUBLIC_URL: 'ftp://api.portico.example' }, 'PUBLIC_URL'],
    ['SANDBOX_URL is not a URL', { SANDBOX_URL: 'sandbox' }, 'SANDBOX_URL'],
    ['APP_ENV is unknown', { APP_ENV: 'staging' }, 'APP_ENV'],
    ['DATABASE_URL is another engine', { DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    ['DATABASE_URL is sqlite without a path', { DATABASE_URL: 'sqlite:' }, 'DATABASE_URL'],
    ['REDIS_URL is not redis', { REDIS_URL: 'http://cache.internal' }, 'REDIS_URL'],
    ['SMTP_URL is not smtp', { SMTP_URL: 'http://x' }, 'SMTP_URL'],
    ['SMTP_URL is not a URL', { SMTP_URL: 'mail.internal:25' }, 'SMTP_URL'],
    ['SMTP_URL carries query options (nodemailer style)', { SMTP_URL: 'smtp://mail.internal:587?requireTLS=true' }, 'SMTP_URL'],
    ['SMTP_URL has a path', { SMTP_URL: 'smtp://mail.internal:587/relay' }, 'SMTP_URL'],
    ['SMTP_URL has an unencoded / in a numeric password', { SMTP_URL: 'smtp://mailer:1234/56@mail.internal:587' }, 'SMTP_URL'],
    ['MAIL_FROM is not an address', { MAIL_FROM: 'Portico' }, 'MAIL_FROM'],
    ['MAIL_TO is not an address', { MAIL_TO: 'team at example' }, 'MAIL_TO'],
    ['MAIL_TO_DEMO is not an address', { MAIL_TO_DEMO: 'demo team' }, 'MAIL_TO_DEMO'],
    ['MAIL_TO_SUPPORT has no domain', { MAIL_TO_SUPPORT: 'Help <help@>' }, 'MAIL_TO_SUPPORT'],
    ['TURNSTILE_VERIFY_URL is not a URL', { TURNSTILE_SITE_KEY: 'a', TURNSTILE_SECRET_KEY: 'b', TURNSTILE_VERIFY_URL: 'siteverify' }, 'TURNSTILE_VERIFY_URL'],
    ['CONTACT_ALLOWED_ORIGINS holds a path', { CONTACT_ALLOWED_ORIGINS: 'https://www.portico.example/contact' }, 'CONTACT_ALLOWED_ORIGINS'],
    ['CONTACT_ALLOWED_ORIGINS holds a bare host', { CONTACT_ALLOWED_ORIGINS: 'www.portico.example' }, 'CONTACT_ALLOWED_ORIGINS'],
    ['MCP_ALLOWED_ORIGINS holds a path', { MCP_ALLOWED_ORIGINS: 'https://app.example/mcp' }, 'MCP_ALLOWED_ORIGINS'],
    ['TRUST_PROXY is garbage', { TRUST_PROXY: 'garbage' }, 'TRUST_PROXY'],
    ['TRUST_PROXY holds a CIDR prefix out of range', { TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY'],
    ['RATE_LIMITS has a count that is not a number', { RATE_LIMITS: 'contact=abc' }, 'RATE_LIMITS'],
    ['RATE_LIMITS names an unknown limit', { RATE_LIMITS: 'unknown=1/m' }, 'RATE_LIMITS'],
    ['RATE_LIMITS has a zero count', { RATE_LIMITS: 'contact=0/h' }, 'RATE_LIMITS'],
    ['RATE_LIMITS has an unknown unit', { RATE_LIMITS: 'contact=8/w' }, 'RATE_LIMITS'],
    ['LOG_LEVEL is not a pino level', { LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
  ])('throws when %s', (_case, env, variable) => {
    configError(env, variable);
  });

  it('names the missing Turnstile key when only the site key is set', () => {
    configError({ TURNSTILE_SITE_KEY: '0x4AAAAAAAsite' }, 'TURNSTILE_SECRET_KEY');
  });

  it('names the missing Turnstile key when only the secret key is set', () => {
    configError({ TURNSTILE_SECRET_KEY: '0x4AAAAAAAsecret' }, 'TURNSTILE_SITE_KEY');
  });

  it('says what is wrong and echoes the value it got', () => {
    expect(configError({ PORT: 'abc' }, 'PORT').message).toBe('PORT must be an integer from 0 to 65535 (got "abc")');
    expect(configError({ APP_ENV: 'staging' }, 'APP_ENV').message).toContain('development, sandbox, production');
  });
});

describe('loadConfig in production', () => {
  it('accepts a complete production environment', () => {
    const config = loadConfig(PRODUCTION);
    expect(config).toMatchObject({ appEnv: 'production', delivery: { smtp: { host: 'smtp.portico.example', user: 'mailer' } }, mailTo: { address: 'sales@portico.example' } });
  });

  it('names every missing setting in one start, each on its own line', () => {
    let caught: unknown;
    try {
      loadConfig({ APP_ENV: 'production' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const { problems, message } = caught as ConfigError;
    expect(problems.map((line) => line.split(' ')[0])).toEqual(['PUBLIC_URL', 'SMTP_URL', 'MAIL_FROM', 'MAIL_TO']);
    expect(message.split('\n')).toEqual(problems);
  });

  it('requires PUBLIC_URL, over https unless it is a loopback address', () => {
    expect(configError({ ...PRODUCTION, PUBLIC_URL: undefined }, 'PUBLIC_URL').message).toContain('https://');
    expect(configError({ ...PRODUCTION, PUBLIC_URL: 'http://api.portico.example' }, 'PUBLIC_URL').message).toContain('must use https://');
    expect(loadConfig({ ...PRODUCTION, PUBLIC_URL: 'http://127.0.0.1:8080' }).publicUrl).toBe('http://127.0.0.1:8080');
  });

  it.each(['SMTP_URL', 'MAIL_FROM', 'MAIL_TO'])('requires %s', (variable) => {
    const message = configError({ ...PRODUCTION, [variable]: undefined }, variable).message;
    expect(message).toContain('production');
  });

  it.each(['1x0000000000000000000000000000000AA', '2x0000000000000000000000000000000AA', '3x0000000000000000000000000000000AA'])('refuses the Cloudflare test secret %s', (secret) => {
    configError({ ...PRODUCTION, TURNSTILE_SITE_KEY: '1x00000000000000000000AA', TURNSTILE_SECRET_KEY: secret }, 'TURNSTILE_SECRET_KEY');
  });

  it('accepts a real Turnstile secret', () => {
    const config = loadConfig({ ...PRODUCTION, TURNSTILE_SITE_KEY: '0x4AAAAAAAsite', TURNSTILE_SECRET_KEY: '0x4AAAAAAAsecret' });
    expect(config.turnstile?.secretKey).toBe('0x4AAAAAAAsecret');
  });

  it('accepts the Cloudflare test secrets in sandbox and development', () => {
    const keys = { TURNSTILE_SITE_KEY: '1x00000000000000000000AA', TURNSTILE_SECRET_KEY: '1x0000000000000000000000000000000AA' };
    expect(loadConfig({ ...keys, APP_ENV: 'sandbox' }).turnstile?.secretKey).toBe(keys.TURNSTILE_SECRET_KEY);
    expect(loadConfig(keys).turnstile?.secretKey).toBe(keys.TURNSTILE_SECRET_KEY);
  });
});

describe('loadConfig never echoes a password into its error', () => {
  it.each<[string, Env, string, string]>([
    ['SMTP_URL with the wrong scheme', { SMTP_URL: 'http://mailer:hunter2@mail.internal' }, 'SMTP_URL', 'hunter2'],
    ['SMTP_URL with a bad port', { SMTP_URL: 'smtp://mailer:hunter2@mail.internal:99999' }, 'SMTP_URL', 'hunter2'],
    ['SMTP_URL with an @ in the password', { SMTP_URL: 'http://mailer:hunter2@topsecret@mail.internal' }, 'SMTP_URL', 'topsecret'],
    ['SMTP_URL with a / in the password', { SMTP_URL: 'smtp://mailer:hunter2/topsecret@mail.internal' }, 'SMTP_URL', 'topsecret'],
    ['DATABASE_URL of another engine', { DATABASE_URL: 'mysql://root:hunter2@db.internal/portico' }, 'DATABASE_URL', 'hunter2'],
    ['DATABASE_URL with an empty user', { DATABASE_URL: 'mysql://:hunter2@db.internal/portico' }, 'DATABASE_URL', 'hunter2'],
    ['REDIS_URL with the wrong scheme', { REDIS_URL: 'http://:hunter2@cache.internal:6379' }, 'REDIS_URL', 'hunter2'],
    ['PUBLIC_URL with credentials', { PUBLIC_URL: 'https://admin:hunter2@api.portico.example' }, 'PUBLIC_URL', 'hunter2'],
  ])('when it refuses %s', (_case, env, variable, password) => {
    expect(configError(env, variable).message).not.toContain(password);
  });
});

describe('PRIVACY_POLICY_URL', () => {
  it('is absent by default, and an https address when set', () => {
    expect(loadConfig({}).privacyPolicyUrl).toBeUndefined();
    expect(loadConfig({ PRIVACY_POLICY_URL: 'https://www.example.com/privacy' }).privacyPolicyUrl).toBe('https://www.example.com/privacy');
  });

  it.each([
    ['http://www.example.com/privacy', 'must use https://'],
    ['privacy.html', 'is not a valid URL'],
  ])('refuses %s', (value, problem) => {
    expect(configError({ PRIVACY_POLICY_URL: value }, 'PRIVACY_POLICY_URL').message).toContain(problem);
  });
});

describe('MAX_CONNECTIONS', () => {
  it('is 2,048 by default, and any count from 1', () => {
    expect(loadConfig({}).maxConnections).toBe(2_048);
    expect(loadConfig({ MAX_CONNECTIONS: '20000' }).maxConnections).toBe(20_000);
  });

  it.each(['0', '-1', 'many', '1.5'])('refuses %s', (value) => {
    expect(configError({ MAX_CONNECTIONS: value }, 'MAX_CONNECTIONS').message).toBe(`MAX_CONNECTIONS must be an integer from 1 to 1000000 (got "${value}")`);
  });
});

describe('MIN_BODY_RATE', () => {
  it('is 500 bytes a second by default, and 0 turns the floor off', () => {
    expect(loadConfig({}).minBodyRate).toBe(500);
    expect(loadConfig({ MIN_BODY_RATE: '2000' }).minBodyRate).toBe(2_000);
    expect(loadConfig({ MIN_BODY_RATE: '0' }).minBodyRate).toBe(0);
  });

  it.each(['-1', 'fast', '1.5', '500B/s', '99999999'])('refuses %s', (value) => {
    expect(configError({ MIN_BODY_RATE: value }, 'MIN_BODY_RATE').message).toBe(`MIN_BODY_RATE must be a whole number of bytes a second (0 for no floor) (got "${value}")`);
  });
});

describe('METRICS_PORT and METRICS_HOST', () => {
  it('serves no metrics unless METRICS_PORT is set, and then on loopback', () => {
    expect(loadConfig({}).metrics).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '9464' }).metrics).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' }).metrics).toEqual({ host: '0.0.0.0', port: 9464 });
  });

  it('refuses a port that is not one, or the public port itself', () => {
    expect(configError({ METRICS_PORT: 'nine' }, 'METRICS_PORT').message).toContain('integer from 0 to 65535');
    expect(configError({ PORT: '8080', METRICS_PORT: '8080' }, 'METRICS_PORT').message).toContain('must differ from PORT (8080)');
  });
});

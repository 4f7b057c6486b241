// Spec table 3.3 row by row, with both storage drivers (local and s3 against s3rver): intent, upload,
// attach on create/PUT/PATCH and sub-resource PUT, signed links on reads, old files deleted after commit.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApi, type RunningApi } from '../e2e/support/server.ts';
import type { Storage } from '../../server/files/storage.ts';
import { dataOf, download, PDF, PNG, startS3, storedBlock, upload, type FakeS3 } from './support.ts';

function flow(driver: 'local' | 's3') {
  const t = suite(`files flow (${driver})`);
  let api: RunningApi;
  let s3: FakeS3 | undefined;
  let project = '';
  const storage = (): Storage => api.files.storage;
  const uploads = async (token: string): Promise<any> => (await api.db.sql`select * from lib.uploads where token = ${token}`)[0];

  t.before(async () => {
    s3 = driver === 's3' ? await startS3() : undefined;
    api = await startApi('examples/publishing.model.json', s3 ? { storage: s3.storage } : {});
    project = dataOf(await api.post('/projects', { name: 'Files' }), 201).id;
  });
  t.after(async () => {
    await api?.close();
    await s3?.close();
  });

  t('none -> intent: a tmp/ reference for the caller and a signed upload_url valid 15 minutes', async () => {
    const reply = await api.post('/.well-known/upload', { filename: 'cover.png', contentType: 'image/png' });
    const data = dataOf(reply, 201);
    assert.type(data.file_reference, 'string');
    assert.ok(data.file_reference.length >= 32, 'the reference is long and random');
    const url = new URL(data.upload_url);
    assert.ok(url.protocol === 'http:' && url.host.startsWith('127.0.0.1'), `absolute upload_url ${data.upload_url}`);
    const row = await uploads(data.file_reference);
    assert.is(row.owner, 'u-admin');
    assert.is(row.filename, 'cover.png');
    assert.is(row.content_type, 'image/png');
    assert.match(row.tmp_key, /^tmp\//);
    assert.is(row.used_at, null);
    const minutes = (new Date(row.expires_at).getTime() - Date.now()) / 60_000;
    assert.ok(minutes > 14 && minutes <= 15, `expires in 15 minutes (${minutes})`);
    const signedFor = (new Date(data.expires_at).getTime() - Date.now()) / 60_000;
    assert.ok(signedFor > 14 && signedFor <= 15, 'the address expires in 15 minutes');
    const apart = Math.abs(new Date(data.expires_at).getTime() - new Date(row.expires_at).getTime());
    assert.ok(apart < 1_000, `the address expires when the intent does (${apart} ms apart): api.upload_intent holds the window`);
    if (driver === 's3') {
      assert.is(url.searchParams.get('X-Amz-Expires'), '900');
      assert.match(url.searchParams.get('X-Amz-SignedHeaders') ?? '', 'content-type', 'the Content-Type is signed into the PUT');
    }
    assert.ok(url.pathname.includes(row.tmp_key), 'the address is the tmp/ key');
  });

  t('temporary -> PUT of the bytes with the declared Content-Type: uploaded, still temporary', async () => {
    const up = await upload(api);
    const row = await uploads(up.ref);
    const head = await storage().head(row.tmp_key);
    assert.equal(head, { size: PNG.length, contentType: 'image/png' });
    assert.is(row.used_at, null);
    assert.is(row.location, null);
  });

  t('uploaded -> create carrying the reference: copied to uploads/, tmp removed, column holds the block', async () => {
    const up = await upload(api, { name: 'cover.png' });
    const { tmp_key } = await uploads(up.ref);
    const post = dataOf(await api.post(`/projects/${project}/posts`, { id: 'p1', title: 'With cover', cover: up.ref }), 201);
    assert.equal(Object.keys(post.cover).sort(), ['id', 'mime', 'name', 'url']);
    assert.equal([post.cover.id, post.cover.name, post.cover.mime], [up.ref, 'cover.png', 'image/png']);
    const block = await storedBlock(api, 'posts', 'id', 'p1', 'cover');
    assert.equal(Object.keys(block).sort(), ['id', 'location', 'mime', 'name']);
    assert.match(block.location, /^uploads\//);
    assert.equal(await storage().head(block.location), { size: PNG.length, contentType: 'image/png' });
    await api.files.drain();
    assert.is(await storage().head(tmp_key), undefined, 'the temporary object is gone');
    const got = await download(post.cover.url);
    assert.is(got.status, 200);
    assert.is(got.type, 'image/png');
    assert.equal(got.bytes, PNG);
    assert.ok((await uploads(up.ref)).used_at, 'the reference is used');
  });

  t('a type declared in another case is PUT exactly as declared and stored in lowercase', async () => {
    const up = await upload(api, { name: 'Shout.PNG', type: 'Image/PNG' });
    const post = dataOf(await api.post(`/projects/${project}/posts`, { id: 'p0', title: 'Case', cover: up.ref }), 201);
    assert.equal([post.cover.name, post.cover.mime], ['Shout.PNG', 'image/png']);
    assert.is((await api.del('/posts/p0?permanent=true')).status, 204);
  });

  t('reads show {id, name, mime, url}: read, list, search, with a fresh signed link each time', async () => {
    const read = dataOf(await api.get('/posts/p1'));
    const list = dataOf(await api.get('/posts?id=p1'))[0];
    const search = dataOf(await api.post('/posts/search', { where: { id: { eq: 'p1' } } }))[0];
    for (const cover of [read.cover, list.cover, search.cover]) {
      assert.equal(Object.keys(cover).sort(), ['id', 'mime', 'name', 'url']);
      assert.is((await download(cover.url)).status, 200);
    }
    assert.is(read.attachment, null);
  });

  t('permanent -> PUT with a new file: the old one is deleted after commit; the same reference keeps it', async () => {
    const before = await storedBlock(api, 'posts', 'id', 'p1', 'cover');
    const current = dataOf(await api.get('/posts/p1'));
    const kept = dataOf(await api.put('/posts/p1', { title: 'Kept', cover: current.cover.id }));
    assert.is(kept.cover.id, current.cover.id);
    assert.equal(await storedBlock(api, 'posts', 'id', 'p1', 'cover'), before, 'PUT round-trip keeps the file');
    const up = await upload(api, { name: 'second.png' });
    const replaced = dataOf(await api.put('/posts/p1', { title: 'Replaced', cover: up.ref }));
    assert.is(replaced.cover.name, 'second.png');
    await api.files.drain();
    assert.is(await storage().head(before.location), undefined, 'the old file is deleted');
    const after = await storedBlock(api, 'posts', 'id', 'p1', 'cover');
    assert.ok(await storage().head(after.location), 'the new file is there');
  });

  t('permanent -> PATCH with a new file, then PATCH to null: each old file is deleted', async () => {
    const before = await storedBlock(api, 'posts', 'id', 'p1', 'cover');
    const up = await upload(api, { name: 'third.jpg', type: 'image/jpeg' });
    const patched = dataOf(await api.patch('/posts/p1', { cover: up.ref, attachment: (await upload(api, { name: 'a.pdf', type: 'application/pdf', bytes: PDF })).ref }));
    assert.equal([patched.cover.mime, patched.attachment.mime], ['image/jpeg', 'application/pdf']);
    await api.files.drain();
    assert.is(await storage().head(before.location), undefined);
    const third = await storedBlock(api, 'posts', 'id', 'p1', 'cover');
    assert.is(dataOf(await api.patch('/posts/p1', { cover: null })).cover, null);
    await api.files.drain();
    assert.is(await storage().head(third.location), undefined, 'cleared: deleted');
    assert.ok(await storage().head((await storedBlock(api, 'posts', 'id', 'p1', 'attachment')).location), 'the untouched attachment stays');
  });

  t('permanent -> hard delete of the record: its files are deleted; a soft delete keeps them', async () => {
    const attachment = await storedBlock(api, 'posts', 'id', 'p1', 'attachment');
    assert.is((await api.del('/posts/p1')).status, 204);
    await api.files.drain();
    assert.ok(await storage().head(attachment.location), 'soft-deleted: the file stays for a restore');
    assert.is((await api.del('/posts/p1?permanent=true')).status, 204);
    await api.files.drain();
    assert.is(await storage().head(attachment.location), undefined, 'permanently deleted: the file is gone');
  });

  t('sub-resource PUT (the user\'s own profile avatar): attach, keep, replace', async () => {
    const user = dataOf(await api.post('/users', { email: `ann-${driver}@example.com`, password: 'pw' }, { token: null }), 201).id;
    const self = await api.token({ sub: user });
    const up = await upload(api, { name: 'me.png', token: self });
    const profile = dataOf(await api.put(`/users/${user}/profile`, { bio: 'Hi', avatar: up.ref }, { token: self }));
    assert.equal([profile.avatar.id, profile.avatar.name], [up.ref, 'me.png']);
    const first = await storedBlock(api, 'users_profile', 'user_id', user, 'avatar');
    dataOf(await api.put(`/users/${user}/profile`, { bio: 'Again', avatar: up.ref }, { token: self }));
    assert.equal(await storedBlock(api, 'users_profile', 'user_id', user, 'avatar'), first, 'the same reference keeps the avatar');
    const next = await upload(api, { name: 'me2.jpg', type: 'image/jpeg', token: self });
    const read = dataOf(await api.put(`/users/${user}/profile`, { bio: 'New', avatar: next.ref }, { token: self }));
    assert.is(read.avatar.name, 'me2.jpg');
    await api.files.drain();
    assert.is(await storage().head(first.location), undefined, 'the old avatar is deleted');
    assert.is((await download(dataOf(await api.get(`/users/${user}/profile`, { token: self })).avatar.url)).status, 200);
    const avatar = await storedBlock(api, 'users_profile', 'user_id', user, 'avatar');
    assert.is((await api.del(`/users/${user}`, { token: self })).status, 204);
    await api.files.drain();
    assert.is(await storage().head(avatar.location), undefined, 'deleting the user deletes the profile\'s avatar');
  });

  t('embedded records show their files as {id, name, mime, url} too: a read and a list with include', async () => {
    const user = dataOf(await api.post('/users', { email: `bo-${driver}@example.com`, password: 'pw' }, { token: null }), 201).id;
    const self = await api.token({ sub: user });
    const up = await upload(api, { name: 'bo.png', token: self });
    dataOf(await api.put(`/users/${user}/profile`, { bio: 'Bo', avatar: up.ref }, { token: self }));
    const read = dataOf(await api.get(`/users/${user}?include=profile`, { token: self }));
    const listed = dataOf(await api.get(`/users?id=${user}&include=profile`, { token: self }))[0];
    for (const [where, row] of [['read', read], ['list', listed]] as const) {
      const avatar = row.profile.avatar;
      assert.equal(Object.keys(avatar).sort(), ['id', 'mime', 'name', 'url'], `${where}: ${JSON.stringify(avatar)}`);
      assert.equal([avatar.id, avatar.name, avatar.mime], [up.ref, 'bo.png', 'image/png'], where);
      assert.is((await download(avatar.url)).status, 200, `${where}: the link downloads the file`);
    }
  });

  t('no request caused a server error', () => {
    assert.equal(api.serverErrors, []);
  });
  return t;
}

flow('local').run();
flow('s3').run();

// The access log's sink: lines written in blocks (at the block size, or after the wait), in order, what is
// left written when the process exits, and lines dropped rather than kept while the output is not read or failed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Writable } from 'node:stream';
import { BlockSink } from '../../server/http/log-sink.ts';
import { runProcess } from '../harness/child.ts';

/** An output that keeps each write it was given; `stalled`: it never finishes one (a reader that stopped). */
function output(stalled = false) {
  const writes: string[] = [];
  const out = new Writable({
    highWaterMark: 16,
    write(chunk, _enc, done) {
      writes.push(String(chunk));
      if (!stalled) done();
    },
  });
  return { out, writes };
}

test('lines are written together once a block is full, in the order logged', () => {
  const { out, writes } = output();
  const sink = new BlockSink(out, { blockChars: 30, flushMs: 60_000 });
  for (const n of [1, 2, 3]) sink.write(`{"line":${n}}\n`); // 11 characters each
  assert.equal(writes, ['{"line":1}\n{"line":2}\n{"line":3}\n']);
  sink.write('{"line":4}\n');
  assert.is(writes.length, 1, 'a line short of a block waits');
  sink.flush();
});

test('a line waits at most flushMs', async () => {
  const { out, writes } = output();
  const sink = new BlockSink(out, { blockChars: 1 << 20, flushMs: 30 });
  sink.write('a\n');
  sink.write('b\n');
  assert.equal(writes, []);
  await new Promise((r) => setTimeout(r, 120));
  assert.equal(writes, ['a\nb\n']);
});

test('while the output is not read, lines past maxUnsentChars are dropped, not kept', () => {
  const { out, writes } = output(true);
  const sink = new BlockSink(out, { blockChars: 10, flushMs: 60_000, maxUnsentChars: 100 });
  for (let i = 0; i < 50; i++) sink.write(`${String(i).padStart(9, '0')}\n`);
  assert.ok(sink.dropped >= 35, `dropped ${sink.dropped}`);
  assert.ok(out.writableLength <= 110, `unsent ${out.writableLength}`);
  assert.is(writes[0], '000000000\n');
});

test('an output that fails (its reader went away) ends nothing: later lines are dropped', async () => {
  const out = new Writable({ write(_chunk, _enc, done) { done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })); } });
  const sink = new BlockSink(out, { blockChars: 4, flushMs: 60_000 });
  sink.write('first\n');
  await new Promise((r) => setImmediate(r));
  assert.is(sink.write('second\n'), false);
  assert.is(sink.dropped, 1);
  sink.flush();
});

test('what is gathered is written when the process exits', async () => {
  const script = [
    "import { BlockSink } from './server/http/log-sink.ts';",
    'const sink = new BlockSink(process.stdout);',
    "for (let i = 0; i < 3; i++) sink.write(`line ${i}\\n`);",
    'process.exit(0);',
  ].join('\n');
  const { code, stdout, stderr } = await runProcess(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]);
  assert.is(code, 0, stderr);
  assert.is(stdout, 'line 0\nline 1\nline 2\n');
});

test.run();

// `npm test [-- <dir or file>]`: starts one PostgreSQL for the run, runs every test/**/*.test.ts (or <dir>/**, or one file)
// with uvu in one child process (a new one for the files after a crash), then the compatibility slice on every other
// supported major (test/harness/majors.ts), each on its own embedded cluster, and ends with `N passed, N failed[, N skipped]`.
import { spawn } from 'node:child_process';
import { crashReport, onlySuites, suitesOf, uvuTarget } from './harness/target.ts';
import { fileURLToPath } from 'node:url';
import { startTestCluster, startThrowawayEmbedded, type TestCluster } from './harness/cluster.ts';
import { COMPAT_SLICE, compatMajors } from './harness/majors.ts';
import { withAdminClient } from '../ops/pg/admin.ts';
import { serverVersion } from '../ops/pg/version.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const LINGER_MS = 15_000; // after uvu's totals, how long the child may take to exit on its own

interface Counts { passed: number; failed: number; skipped: number }

function summary({ passed, failed, skipped }: Counts): string {
  return `${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`;
}

/** Reads uvu's closing block (Total / Passed / Skipped); a crash or a missing block counts as a failure. */
function countResults(output: string, exitCode: number | null): Counts {
  const text = output.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
  const last = (label: string) => {
    const all = [...text.matchAll(new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'gm'))];
    const m = all[all.length - 1];
    return m ? Number(m[1]) : undefined;
  };
  const total = last('Total'), passed = last('Passed') ?? 0, skipped = last('Skipped') ?? 0;
  let failed = total === undefined ? 0 : Math.max(0, total - passed);
  if ((total === undefined || exitCode !== 0) && failed === 0) failed = 1;
  return { passed, failed, skipped };
}

interface UvuRun { counts: Counts; output: string; reported: boolean }

function runUvu(adminUrl: string, dir: string, pattern: string): Promise<UvuRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, TEST_ADMIN_URL: adminUrl };
  delete env.DATABASE_URL; // tests reach the cluster through TEST_ADMIN_URL and their own databases only
  const color = process.stdout.isTTY && !process.env.CI ? [] : ['--no-color'];
  const args = ['--import', 'tsx', 'node_modules/uvu/bin.js', dir, pattern, ...color];
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let finished = false;
  let lingerTimer: NodeJS.Timeout | undefined;
  child.stdout.on('data', (chunk: Buffer) => {
    process.stdout.write(chunk);
    output += chunk.toString('utf8');
    if (!finished && /Duration:/.test(output)) {
      finished = true;
      lingerTimer = setTimeout(() => {
        console.error(`\nThe test process did not exit ${LINGER_MS / 1000} s after its last test (open handles?); stopping it.`);
        child.kill('SIGKILL');
      }, LINGER_MS);
    }
  });
  child.stderr.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  return new Promise((resolve) => {
    child.on('error', (err) => {
      console.error(`Could not run uvu: ${err.message}`);
      resolve({ counts: { passed: 0, failed: 1, skipped: 0 }, output, reported: false });
    });
    child.on('close', (code) => {
      clearTimeout(lingerTimer);
      // A child killed for lingering after reporting is judged by what it reported.
      resolve({ counts: countResults(output, finished && code === null ? 0 : code), output, reported: finished });
    });
  });
}

const add = (a: Counts, b: Counts): Counts => ({ passed: a.passed + b.passed, failed: a.failed + b.failed, skipped: a.skipped + b.skipped });

/**
 * Runs a target's files. A process that dies before its totals (an uncaught error from a test's leftovers)
 * counts its finished suites and one failure for the file it died in, and the files after that one run in a
 * new process, so one crash hides no other result.
 */
async function runTarget(adminUrl: string, target: string): Promise<Counts> {
  const [dir, pattern] = uvuTarget(target);
  return runSuites(adminUrl, dir, pattern);
}

async function runSuites(adminUrl: string, dir: string, pattern: string): Promise<Counts> {
  let names = await suitesOf(dir, pattern);
  let counts: Counts = { passed: 0, failed: 0, skipped: 0 };
  for (let only = pattern; ;) {
    const run = await runUvu(adminUrl, dir, only);
    if (run.reported) return add(counts, run.counts);
    const crash = crashReport(run.output, names);
    counts = add(counts, { passed: crash.passed, failed: crash.failed + 1, skipped: 0 });
    const rest = crash.stoppedIn ? names.slice(names.indexOf(crash.stoppedIn) + 1) : [];
    if (rest.length === 0) return counts;
    console.error(`\nThe test process died in ${crash.stoppedIn}; a new one runs the files after it (${rest.length}).\n`);
    names = rest;
    only = onlySuites(rest);
  }
}

const versionOf = (url: string) => withAdminClient(url, async (sql) => (await serverVersion(sql)).text);

/** The compatibility slice on a throwaway cluster of `major`, its own summary line printed with the major. */
async function runSlice(major: number, track: (c: TestCluster | undefined) => void): Promise<Counts> {
  console.log(`\nPostgreSQL ${major}: the compatibility slice (${COMPAT_SLICE.length} files)`);
  let counts: Counts = { passed: 0, failed: 1, skipped: 0 };
  let cluster: TestCluster | undefined;
  let version = '';
  try {
    cluster = await startThrowawayEmbedded(major);
    track(cluster);
    version = await versionOf(cluster.adminUrl);
    if (Number(version.split('.')[0]) !== major) throw new Error(`the cluster of ${major} runs PostgreSQL ${version}`);
    counts = await runSuites(cluster.adminUrl, 'test', onlySuites(COMPAT_SLICE));
  } catch (err) {
    console.error(`PostgreSQL ${major} failed: ${(err as Error).stack ?? String(err)}`);
  } finally {
    await cluster?.stop().catch((err: Error) => console.error(`Stopping PostgreSQL ${major} failed: ${err.message}`));
    track(undefined);
  }
  console.log(`PostgreSQL ${version || major}, the compatibility slice: ${summary(counts)}`);
  return counts;
}

async function main(): Promise<number> {
  let cluster: TestCluster | undefined;
  let counts: Counts = { passed: 0, failed: 1, skipped: 0 };
  const interrupt = () => void cluster?.stop().finally(() => process.exit(130));
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  try {
    const named = process.argv.length > 2;
    const majors = compatMajors(process.env, named);
    cluster = await startTestCluster();
    console.log(`PostgreSQL for this run: ${cluster.kind}`);
    const targets = named ? process.argv.slice(2) : ['test'];
    counts = { passed: 0, failed: 0, skipped: 0 };
    for (const target of targets) { // several files or folders run one after another, counted together
      counts = add(counts, await runTarget(cluster.adminUrl, target));
    }
    const version = await versionOf(cluster.adminUrl);
    await cluster.stop();
    cluster = undefined;
    if (majors.length) console.log(`\nPostgreSQL ${version}, the whole suite: ${summary(counts)}`);
    for (const major of majors) counts = add(counts, await runSlice(major, (c) => { cluster = c; }));
  } catch (err) {
    console.error(`Test run failed: ${(err as Error).stack ?? String(err)}`);
  } finally {
    await cluster?.stop().catch((err: Error) => console.error(`Stopping PostgreSQL failed: ${err.message}`));
  }
  console.log(summary(counts));
  return counts.failed === 0 && counts.passed > 0 ? 0 : 1;
}

main().then((code) => process.exit(code));

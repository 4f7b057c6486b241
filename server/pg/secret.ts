// A random secret generated on first use and kept in a file readable only by its owner (0600).
// Used for the embedded cluster's password so it survives restarts without being configured.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** The secret stored in `file`, if there is one. */
export function storedSecret(file: string): string | undefined {
  return (existsSync(file) && readFileSync(file, 'utf8').trim()) || undefined;
}

/** Returns the secret stored in `file`, creating it (hex, `bytes` random bytes) if missing. */
export function persistentSecret(file: string, bytes = 24): string {
  const stored = storedSecret(file);
  if (stored) return stored;
  mkdirSync(dirname(file), { recursive: true });
  const secret = randomBytes(bytes).toString('hex');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  chmodSync(file, 0o600); // writeFileSync's mode only applies when it creates the file
  return secret;
}

// Lifetimes and sign-in limits of the identity endpoints, in one place: defaults, the environment
// variables that change them, their reading at start. The SQL functions receive them as `settings`.

export interface AuthSettings {
  /** Seconds an access token is valid (its `exp`). */
  accessSeconds: number;
  /** Seconds a refresh token is valid; each rotation starts a new one. */
  refreshSeconds: number;
  /** Failed sign-ins for one email from one address (an IPv6 /64) within a window before 429. */
  attemptsPerEmail: number;
  /** Failed sign-ins for one email from all addresses within a window before 429 (guesses spread over many). */
  attemptsPerAccount: number;
  /** Failed sign-ins per IP address within a window before 429. */
  attemptsPerIp: number;
  /** Seconds of the window the attempts are counted in (and the longest Retry-After). */
  windowSeconds: number;
}

export const AUTH_SETTINGS: Record<keyof AuthSettings, { env: string; fallback: number }> = {
  accessSeconds: { env: 'ACCESS_TOKEN_SECONDS', fallback: 900 },
  refreshSeconds: { env: 'REFRESH_TOKEN_SECONDS', fallback: 30 * 24 * 3600 },
  attemptsPerEmail: { env: 'SIGN_IN_ATTEMPTS_PER_EMAIL', fallback: 5 },
  attemptsPerAccount: { env: 'SIGN_IN_ATTEMPTS_PER_ACCOUNT', fallback: 100 },
  attemptsPerIp: { env: 'SIGN_IN_ATTEMPTS_PER_IP', fallback: 50 },
  windowSeconds: { env: 'SIGN_IN_WINDOW_SECONDS', fallback: 900 },
};

export const DEFAULT_AUTH_SETTINGS = Object.fromEntries(Object.entries(AUTH_SETTINGS).map(([k, v]) => [k, v.fallback])) as unknown as AuthSettings;

/** The settings from the environment; a value that is not a positive whole number stops the start. */
export function authSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): AuthSettings {
  const out = { ...DEFAULT_AUTH_SETTINGS };
  for (const [key, { env: name }] of Object.entries(AUTH_SETTINGS) as Array<[keyof AuthSettings, { env: string }]>) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1 || n > 2 ** 31 - 1) throw new Error(`${name} must be a positive whole number, got "${raw}"`);
    out[key] = n;
  }
  return out;
}

/** The `settings` argument of api.auth_token and api.auth_refresh (compiler/sql/identity.ts reads these names). */
export function sqlSettings(s: AuthSettings): Record<string, number> {
  return {
    refresh_seconds: s.refreshSeconds, attempts_per_email: s.attemptsPerEmail, attempts_per_account: s.attemptsPerAccount,
    attempts_per_ip: s.attemptsPerIp, window_seconds: s.windowSeconds,
  };
}

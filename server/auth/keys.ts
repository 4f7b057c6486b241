// The key the gateway signs its own tokens with (POST /auth/token): JWT_PRIVATE_KEY (PEM; an EC P-256 key
// signs ES256, an RSA key RS256) or else JWT_SECRET (HS256); and its public half as a JWKS document.
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';

export type SigningAlg = 'HS256' | 'ES256' | 'RS256';

export interface SigningKey {
  alg: SigningAlg;
  /** What signs: the private key, or the HS256 secret's bytes. */
  key: KeyObject | Uint8Array;
  /** Asymmetric keys: the public half, its JWK thumbprint as `kid`, and the JWK /.well-known/jwks.json shows. */
  publicKey?: KeyObject;
  kid?: string;
  jwk?: JWK;
}

/** HS256 with a shared secret: nothing to publish. */
export function secretKey(secret: string): SigningKey {
  return { alg: 'HS256', key: new TextEncoder().encode(secret) };
}

/** An ES256 or RS256 key from PEM (PKCS#8 or SEC1/PKCS#1; `\n` escapes as environment files write them). */
export async function privateKey(pem: string): Promise<SigningKey> {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem.replace(/\\n/g, '\n'));
  } catch (err) {
    throw new Error(`JWT_PRIVATE_KEY is not a PEM private key: ${(err as Error).message}`);
  }
  const details = key.asymmetricKeyDetails ?? {};
  let alg: SigningAlg;
  if (key.asymmetricKeyType === 'ec' && details.namedCurve === 'prime256v1') alg = 'ES256';
  else if (key.asymmetricKeyType === 'rsa' && (details.modulusLength ?? 0) >= 2048) alg = 'RS256';
  else throw new Error('JWT_PRIVATE_KEY must be an EC P-256 key (ES256) or an RSA key of at least 2048 bits (RS256).');
  const publicKey = createPublicKey(key);
  const exported = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(exported);
  return { alg, key, publicKey, kid, jwk: { ...exported, kid, alg, use: 'sig' } };
}

/** GET /.well-known/jwks.json: the public key of an asymmetric signing key; none for HS256 (a secret is not published). */
export function jwks(key: SigningKey | undefined): { keys: JWK[] } {
  return { keys: key?.jwk ? [key.jwk] : [] };
}

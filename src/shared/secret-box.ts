import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM under versioned keys. A box is `<version>.<iv>.<ciphertext>.<tag>` (base64url parts), so
 * keys can rotate: new boxes use the first key, old boxes open with the key of their version.
 */
export interface SecretBox {
  seal(plaintext: string): string;
  open(box: string): string;
  /** A 32-byte key for another purpose (a MAC, say), derived from the current key with HKDF-SHA256. */
  deriveKey(purpose: string): Buffer;
  /**
   * That key for every configured key, the current one first, each with its key's version: for a MAC
   * that must still verify what an older key made while keys rotate (ADR 0054).
   */
  deriveKeys(purpose: string): VersionedKey[];
}

export interface VersionedKey {
  version: string;
  key: Buffer;
}

const VERSION = /^[a-z0-9]{1,16}$/;

/** Parses `v2:<base64 of 32 bytes>,v1:<…>`; the first key encrypts, every key decrypts. */
export function parseEncryptionKeys(raw: string): VersionedKey[] {
  const keys = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const [version, material] = entry.split(':');
      if (!version || !VERSION.test(version) || !material)
        throw new Error('each key must look like v1:<base64>');
      const key = Buffer.from(material, 'base64');
      if (key.length !== 32) throw new Error(`key ${version} must be 32 bytes of base64`);
      return { version, key };
    });
  if (keys.length === 0) throw new Error('at least one key is needed');
  if (new Set(keys.map((k) => k.version)).size !== keys.length)
    throw new Error('key versions must be unique');
  return keys;
}

export function generateEncryptionKeys(version = 'v1'): string {
  return `${version}:${randomBytes(32).toString('base64')}`;
}

export function createSecretBox(keys: VersionedKey[]): SecretBox {
  const current = keys[0];
  if (!current) throw new Error('createSecretBox needs a key');
  const byVersion = new Map(keys.map((k) => [k.version, k.key]));
  const derive = (key: Buffer, purpose: string) =>
    Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `gateway:${purpose}`, 32));
  return {
    deriveKey(purpose) {
      return derive(current.key, purpose);
    },
    deriveKeys(purpose) {
      return keys.map(({ version, key }) => ({ version, key: derive(key, purpose) }));
    },
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current.key, iv);
      cipher.setAAD(Buffer.from(current.version));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [current.version, iv, ciphertext, cipher.getAuthTag()]
        .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
        .join('.');
    },
    open(box) {
      const [version, iv, ciphertext, tag] = box.split('.');
      const key = version === undefined ? undefined : byVersion.get(version);
      if (!key || iv === undefined || ciphertext === undefined || tag === undefined) {
        throw new Error('unknown or malformed secret box');
      }
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(version as string));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([
        decipher.update(Buffer.from(ciphertext, 'base64url')),
        decipher.final(),
      ]).toString('utf8');
    },
  };
}

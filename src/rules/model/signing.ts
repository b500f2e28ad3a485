import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import { z } from 'zod';

/**
 * Signed rule exports. A rule export's `_hash` and `manifest_hash` live inside the file they
 * protect, so anyone who edits the file can compute them again: they catch damage, not intent.
 * What decides whether an importer trusts a file is an Ed25519 signature (node:crypto) over the
 * whole document, made with the exporter's private key and checked against public keys the
 * importer's operator trusts. Key rotation is listing the new key beside the old one.
 */

export const SIGNATURE_ALGORITHM = 'Ed25519';
/** Signed bytes are this prefix, then `canonicalJson` of the document without its `signature`. */
export const SIGNING_CONTEXT = 'plugin-self-improve rule export v1\n';
/** A key id: the first 32 hex digits (128 bits) of SHA-256 over the public key's SPKI DER bytes. */
export const KEY_ID_PATTERN = /^[0-9a-f]{32}$/;

export type KeyParse = { ok: true; key: KeyObject } | { ok: false; code: 'invalid_key' | 'wrong_key_type'; message: string };

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** PEM text (literal `\n` escapes, as .env files hold them, read as line breaks) or base64 DER; null when it is neither. */
function keyInput(text: string): { pem: string } | { der: Buffer } | null {
  const trimmed = text.trim().replace(/\\n/g, '\n');
  if (trimmed.startsWith('-----BEGIN')) return { pem: trimmed };
  const compact = trimmed.replace(/\s+/g, '');
  return BASE64.test(compact) ? { der: Buffer.from(compact, 'base64') } : null;
}

function readKey(input: { pem: string } | { der: Buffer }, kind: 'private' | 'public'): KeyObject {
  if ('pem' in input) return kind === 'private' ? createPrivateKey(input.pem) : createPublicKey(input.pem);
  return kind === 'private' ? createPrivateKey({ key: input.der, format: 'der', type: 'pkcs8' }) : createPublicKey({ key: input.der, format: 'der', type: 'spki' });
}

/** Never echoes the key text: messages name the format expected, not what was given. */
function parseKey(text: string, kind: 'private' | 'public'): KeyParse {
  const expected = kind === 'private' ? 'an Ed25519 private key as PEM or base64 PKCS#8 DER' : 'an Ed25519 public key as PEM or base64 SPKI DER';
  const input = keyInput(text);
  if (input === null) return { ok: false, code: 'invalid_key', message: `must be ${expected}` };
  let key: KeyObject;
  try {
    key = readKey(input, kind);
  } catch (error) {
    return { ok: false, code: 'invalid_key', message: `must be ${expected} (${error instanceof Error && 'code' in error ? String(error.code) : 'unreadable'})` };
  }
  if (key.asymmetricKeyType !== 'ed25519') return { ok: false, code: 'wrong_key_type', message: `must be ${expected}, not a ${key.asymmetricKeyType ?? 'secret'} key` };
  return { ok: true, key };
}

export function parsePrivateKey(text: string): KeyParse {
  return parseKey(text, 'private');
}

export function parsePublicKey(text: string): KeyParse {
  return parseKey(text, 'public');
}

/** The public key's SPKI DER bytes, base64: how a signature carries its key. */
export function publicKeyText(key: KeyObject): string {
  return (key.type === 'private' ? createPublicKey(key) : key).export({ format: 'der', type: 'spki' }).toString('base64');
}

/** `KEY_ID_PATTERN`'s id of a public (or private: its public half) key. */
export function keyIdOf(key: KeyObject): string {
  const der = (key.type === 'private' ? createPublicKey(key) : key).export({ format: 'der', type: 'spki' });
  return createHash('sha256').update(der).digest('hex').slice(0, 32);
}

export type TrustedKeysParse = { ok: true; keyIds: string[] } | { ok: false; message: string };

/** SELF_IMPROVE_RULE_TRUSTED_KEYS: comma-separated public keys (PEM or base64 SPKI DER) or key ids, each read as its key id; empty is none. */
export function parseTrustedKeys(text: string): TrustedKeysParse {
  const keyIds: string[] = [];
  for (const [index, raw] of text.split(',').entries()) {
    const entry = raw.trim();
    if (entry === '') continue;
    let id = entry.toLowerCase();
    if (!KEY_ID_PATTERN.test(id)) {
      const parsed = parsePublicKey(entry);
      if (!parsed.ok) return { ok: false, message: `entry ${index + 1} is neither a key id (32 hex digits) nor ${parsed.message.replace(/^must be /, '')}` };
      id = keyIdOf(parsed.key);
    }
    if (!keyIds.includes(id)) keyIds.push(id);
  }
  return { ok: true, keyIds };
}

/**
 * JSON with every object's keys in code-unit order, arrays in their order, no white space;
 * `undefined` members left out as JSON.stringify leaves them. The same document gives the same
 * text however its keys were ordered when it was written or read.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.keys(value as Record<string, unknown>)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A signed export's `signature`. */
export interface RuleSignature {
  algorithm: typeof SIGNATURE_ALGORITHM;
  /** `keyIdOf` the signer's public key. */
  key_id: string;
  /** The signer's public key, base64 SPKI DER (`publicKeyText`). */
  public_key: string;
  /** base64 of the Ed25519 signature over `SIGNING_CONTEXT + canonicalJson(document without signature)`. */
  value: string;
}

/** An unsigned export says so. */
export interface UnsignedMark {
  algorithm: 'none';
  note: string;
}

export const UNSIGNED_NOTE = 'unsigned: SELF_IMPROVE_RULE_SIGNING_KEY is not set; an agent importing this file takes its rules as candidates, not as active rules';

const signedBytes = (body: unknown) => Buffer.from(SIGNING_CONTEXT + canonicalJson(body), 'utf8');

/** The document with a `signature` (the previous one, if any, left out of what is signed): Ed25519 with `privateKey`, or `UnsignedMark` without one. */
export function signDocument<T extends object>(doc: T, privateKey: KeyObject | null): Omit<T, 'signature'> & { signature: RuleSignature | UnsignedMark } {
  const { signature: _previous, ...body } = doc as T & { signature?: unknown };
  if (privateKey === null) return { ...body, signature: { algorithm: 'none', note: UNSIGNED_NOTE } };
  const value = sign(null, signedBytes(body), privateKey).toString('base64');
  return { ...body, signature: { algorithm: SIGNATURE_ALGORITHM, key_id: keyIdOf(privateKey), public_key: publicKeyText(privateKey), value } };
}

const signatureSchema = z.object({
  algorithm: z.literal(SIGNATURE_ALGORITHM, { errorMap: () => ({ message: `signature.algorithm must be ${SIGNATURE_ALGORITHM} or none` }) }),
  key_id: z.string({ required_error: 'signature.key_id is required', invalid_type_error: 'signature.key_id must be 32 hex digits' }).regex(KEY_ID_PATTERN, 'signature.key_id must be 32 hex digits'),
  public_key: z.string({ required_error: 'signature.public_key is required', invalid_type_error: 'signature.public_key must be base64 SPKI DER' }).regex(BASE64, 'signature.public_key must be base64 SPKI DER'),
  value: z.string({ required_error: 'signature.value is required', invalid_type_error: 'signature.value must be base64' }).regex(BASE64, 'signature.value must be base64'),
});

/**
 * How far a document is trusted: `trusted` (a valid signature by a key in `trustedKeyIds`),
 * `unknown_signer` (a valid signature by another key), `unsigned` (no signature, or
 * `algorithm: none`); or refused: `invalid_signature` (the signature block is malformed) or
 * `bad_signature` (its key id does not match its key, or the signature does not verify: the
 * document was changed after signing).
 */
export type SignatureCheck =
  | { ok: true; trust: 'trusted' | 'unknown_signer'; keyId: string }
  | { ok: true; trust: 'unsigned' }
  | { ok: false; code: 'invalid_signature' | 'bad_signature'; field: string; message: string };

export type ImportTrust = 'trusted' | 'unknown_signer' | 'unsigned';

export function checkSignature(doc: unknown, trustedKeyIds: ReadonlySet<string>): SignatureCheck {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return { ok: false, code: 'invalid_signature', field: '(document)', message: 'the document must be a JSON object' };
  const { signature, ...body } = doc as Record<string, unknown>;
  if (signature === undefined || signature === null || (typeof signature === 'object' && (signature as { algorithm?: unknown }).algorithm === 'none')) return { ok: true, trust: 'unsigned' };
  const parsed = signatureSchema.safeParse(signature);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, code: 'invalid_signature', field: ['signature', ...(issue?.path ?? [])].join('.'), message: issue?.message ?? 'signature is malformed' };
  }
  const sig = parsed.data;
  const key = parsePublicKey(sig.public_key);
  if (!key.ok) return { ok: false, code: 'invalid_signature', field: 'signature.public_key', message: `signature.public_key ${key.message}` };
  if (keyIdOf(key.key) !== sig.key_id) return { ok: false, code: 'bad_signature', field: 'signature.key_id', message: 'signature.key_id is not the id of signature.public_key' };
  if (!verify(null, signedBytes(body), key.key, Buffer.from(sig.value, 'base64'))) {
    return { ok: false, code: 'bad_signature', field: 'signature.value', message: `the signature by key ${sig.key_id} does not match the document: it was changed after it was signed` };
  }
  return { ok: true, trust: trustedKeyIds.has(sig.key_id) ? 'trusted' : 'unknown_signer', keyId: sig.key_id };
}

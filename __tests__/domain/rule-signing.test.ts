import { describe, expect, test } from 'bun:test';
import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { exportRules, manifestHash, RULE_HASHED_FIELD_ORDER, type RuleExport, ruleHash } from '../../src/rules/model/export';
import { verifyImport } from '../../src/rules/model/import';
import { canonicalJson, checkSignature, keyIdOf, parsePrivateKey, parsePublicKey, parseTrustedKeys, signDocument, UNSIGNED_NOTE } from '../../src/rules/model/signing';
import type { Rule } from '../../src/rules/model/types';
import { DAY, makeRule, T0 } from '../helpers/rule-fixtures';
import { testKeyPair } from '../helpers/signing-keys';

const NOW = Date.UTC(2026, 1, 11, 10, 30);
const rules: Rule[] = [
  makeRule({ id: 'R-001', type: 'MUST', category: 'memory', tags: ['notes'], rule: 'Always write decisions to memory', violations: 2, validationCount: 3, confidenceScore: 0.8 }),
  makeRule({ id: 'R-002', type: 'NEVER', category: 'shell', rule: 'Never run rm -rf on a variable path', createdMs: T0 - 3 * DAY, reviewFlagged: true }),
  makeRule({ id: 'R-003', type: 'PREFER', category: 'memory', rule: 'Prefer short notes', status: 'retired', confidenceScore: 0.6 }),
];
const OLD = testKeyPair();
const NEW = testKeyPair();
const STRANGER = testKeyPair();
const key = (text: string) => {
  const parsed = parsePrivateKey(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.key;
};
const roundTrip = <T>(x: T): T => JSON.parse(JSON.stringify(x));
const signed = (privatePem = NEW.privatePem) => roundTrip(signDocument(exportRules(rules, { agentHandle: 'agent-a', nowMs: NOW, sourceWorkspace: '/ws' }), key(privatePem)));
const trusting = (...ids: string[]) => new Set(ids);

describe('keys', () => {
  test('a private key reads from PEM, PEM with literal \\n escapes (as .env files hold it) and base64 PKCS#8 DER; all give the same key id', () => {
    const ids = [NEW.privatePem, NEW.privatePem.replace(/\n/g, '\\n'), NEW.privateBase64].map((text) => keyIdOf(key(text)));
    expect(ids).toEqual([NEW.keyId, NEW.keyId, NEW.keyId]);
  });

  test.each([
    ['not a key at all', 'invalid_key'],
    ['bm90IGEga2V5', 'invalid_key'],
    [generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), 'wrong_key_type'],
  ])('%#: a bad private key is refused (%s) without echoing it', (text, code) => {
    const parsed = parsePrivateKey(text);
    expect(parsed).toMatchObject({ ok: false, code });
    expect(parsed.ok ? '' : parsed.message).not.toContain(text.slice(0, 12));
  });

  test('trusted keys: public keys as PEM or base64 SPKI, or key ids, comma-separated, read as key ids (duplicates once)', () => {
    expect(parseTrustedKeys(`${OLD.publicPem}, ${NEW.publicBase64} ,${NEW.keyId.toUpperCase()},,`)).toEqual({ ok: true, keyIds: [OLD.keyId, NEW.keyId] });
    expect(parseTrustedKeys('')).toEqual({ ok: true, keyIds: [] });
    expect(parseTrustedKeys(`${OLD.keyId}, nonsense!`)).toEqual({ ok: false, message: expect.stringContaining('entry 2 is neither a key id') });
    expect(parsePublicKey(OLD.privateBase64)).toMatchObject({ ok: false, code: 'invalid_key' });
  });

  test('canonicalJson: keys sorted at every depth, arrays in order, no white space', () => {
    expect(canonicalJson({ b: [2, { d: 1, c: null }], a: 'x', u: undefined })).toBe('{"a":"x","b":[2,{"c":null,"d":1}]}');
  });
});

describe('signed exports', () => {
  test('a signed export carries the key id and public key; it verifies against a trusted key, and is an unknown signer otherwise', () => {
    const doc = signed();
    expect(doc.signature).toMatchObject({ algorithm: 'Ed25519', key_id: NEW.keyId, public_key: NEW.publicBase64 });
    expect(checkSignature(doc, trusting(NEW.keyId))).toEqual({ ok: true, trust: 'trusted', keyId: NEW.keyId });
    expect(checkSignature(doc, trusting(OLD.keyId))).toEqual({ ok: true, trust: 'unknown_signer', keyId: NEW.keyId });
    expect(verifyImport(doc)).toMatchObject({ ok: true });
  });

  test('key rotation: with the old and the new key trusted, files signed by either verify', () => {
    const trusted = trusting(...(parseTrustedKeys(`${OLD.publicPem},${NEW.publicBase64}`) as { keyIds: string[] }).keyIds);
    expect(checkSignature(signed(OLD.privatePem), trusted)).toMatchObject({ ok: true, trust: 'trusted', keyId: OLD.keyId });
    expect(checkSignature(signed(NEW.privatePem), trusted)).toMatchObject({ ok: true, trust: 'trusted', keyId: NEW.keyId });
    expect(checkSignature(signed(STRANGER.privatePem), trusted)).toMatchObject({ ok: true, trust: 'unknown_signer' });
  });

  test('without a key the export says it is unsigned; unsigned and signature-less documents are unsigned', () => {
    const doc = signDocument(exportRules(rules, { agentHandle: 'a', nowMs: NOW, sourceWorkspace: '/ws' }), null);
    expect(doc.signature).toEqual({ algorithm: 'none', note: UNSIGNED_NOTE });
    expect(checkSignature(doc, trusting(NEW.keyId))).toEqual({ ok: true, trust: 'unsigned' });
    const { signature: _s, ...bare } = doc;
    expect(checkSignature(bare, trusting(NEW.keyId))).toEqual({ ok: true, trust: 'unsigned' });
  });

  test('re-signing replaces the previous signature', () => {
    const twice = signDocument(signed(OLD.privatePem), key(NEW.privatePem));
    expect(checkSignature(roundTrip(twice), trusting(NEW.keyId))).toMatchObject({ ok: true, trust: 'trusted', keyId: NEW.keyId });
  });

  test.each([
    ['another key id', (d: RuleExport) => ({ ...d, signature: { ...(d.signature as object), key_id: OLD.keyId } }), 'bad_signature', 'signature.key_id'],
    ['another public key (and its id)', (d: RuleExport) => ({ ...d, signature: { ...(d.signature as object), key_id: STRANGER.keyId, public_key: STRANGER.publicBase64 } }), 'bad_signature', 'signature.value'],
    ['a signature value cut short', (d: RuleExport) => ({ ...d, signature: { ...(d.signature as object), value: 'AAAA' } }), 'bad_signature', 'signature.value'],
    ['an unknown algorithm', (d: RuleExport) => ({ ...d, signature: { ...(d.signature as object), algorithm: 'RSA' } }), 'invalid_signature', 'signature.algorithm'],
    ['no value', (d: RuleExport) => ({ ...d, signature: { algorithm: 'Ed25519', key_id: NEW.keyId, public_key: NEW.publicBase64 } }), 'invalid_signature', 'signature.value'],
    ['a public key that is not a key', (d: RuleExport) => ({ ...d, signature: { ...(d.signature as object), public_key: 'AAAA' } }), 'invalid_signature', 'signature.public_key'],
  ])('a signature with %s is refused (%s, %s)', (_name, edit, code, field) => {
    expect(checkSignature(edit(signed()), trusting(NEW.keyId))).toMatchObject({ ok: false, code, field });
  });
});

describe('property: any change to a signed export breaks its signature, even with every hash recomputed', () => {
  const doc = signed();
  const trusted = trusting(NEW.keyId);
  /** Re-hashes every rule and the manifest, as someone editing the file would: only the signature can tell. */
  const rehash = (d: RuleExport): RuleExport => {
    const rulesAgain = d.rules.map(({ _hash: _h, ...body }) => ({ ...body, _hash: ruleHash(body) }));
    return { ...d, rules: rulesAgain, metadata: { ...d.metadata, manifest_hash: manifestHash(rulesAgain.map((r) => r._hash)) } };
  };
  const value = fc.oneof(fc.string(), fc.integer(), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 2 }));

  test('any field of any rule', () => {
    const tamper = fc.tuple(fc.constantFrom(...RULE_HASHED_FIELD_ORDER), value, fc.integer({ min: 0, max: rules.length - 1 }));
    fc.assert(
      fc.property(tamper, ([field, replacement, index]) => {
        const target = doc.rules[index] as unknown as Record<string, unknown>;
        fc.pre(canonicalJson(target[field]) !== canonicalJson(replacement));
        const edited = structuredClone(doc);
        (edited.rules[index] as unknown as Record<string, unknown>)[field] = replacement;
        expect(checkSignature(rehash(edited), trusted)).toMatchObject({ ok: false, code: 'bad_signature', field: 'signature.value' });
      }),
      { numRuns: 300 },
    );
  });

  test('any metadata or statistics field, an added field, a removed or reordered rule', () => {
    // manifest_hash is recomputed by `rehash`, as an editor would; the rule edits above cover it.
    const metadataFields = (Object.keys(doc.metadata) as (keyof RuleExport['metadata'])[]).filter((f) => f !== 'manifest_hash');
    const edits = fc.oneof(
      fc.tuple(fc.constantFrom(...metadataFields), value).map(([field, v]) => (d: RuleExport) => {
        fc.pre(canonicalJson(d.metadata[field]) !== canonicalJson(v));
        (d.metadata as unknown as Record<string, unknown>)[field] = v;
      }),
      value.map((v) => (d: RuleExport) => {
        fc.pre(canonicalJson(d.statistics.avg_confidence) !== canonicalJson(v));
        (d.statistics as unknown as Record<string, unknown>).avg_confidence = v;
      }),
      fc.tuple(fc.string({ minLength: 1 }), value).map(([name, v]) => (d: RuleExport) => {
        fc.pre(name !== 'signature' && !(name in d));
        (d as unknown as Record<string, unknown>)[name] = v;
      }),
      fc.integer({ min: 0, max: rules.length - 1 }).map((i) => (d: RuleExport) => {
        d.rules.splice(i, 1);
      }),
      fc.constant((d: RuleExport) => {
        d.rules.reverse();
      }),
    );
    fc.assert(
      fc.property(edits, (edit) => {
        const edited = structuredClone(doc);
        edit(edited);
        expect(checkSignature(rehash(edited), trusted)).toMatchObject({ ok: false, code: 'bad_signature' });
      }),
      { numRuns: 300 },
    );
  });

  test('the untouched document still verifies after a JSON round trip with its keys reordered', () => {
    const reordered = Object.fromEntries(Object.entries(roundTrip(doc)).reverse());
    expect(checkSignature(reordered, trusted)).toEqual({ ok: true, trust: 'trusted', keyId: NEW.keyId });
  });
});

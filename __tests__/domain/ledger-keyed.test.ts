import { createHash, createHmac } from 'node:crypto';
import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { canonicalTransactionJson, KEYED_HASH_ALG, type LedgerEntryInput, type LedgerTransaction, MAX_ABS_POINTS, nextTransaction, transactionHash } from '../../src/ledger/model/chain';
import { verifyChain } from '../../src/ledger/model/chain-check';
import { checkpointMac, checkpointSchema, type LedgerCheckpoint, makeCheckpoint, verifyAgainstCheckpoint } from '../../src/ledger/model/checkpoint';

const KEY = 'k'.repeat(32);
const OTHER_KEY = 'x'.repeat(32);
const AGENT = '00000000-0000-4000-8000-000000000001';
const AT = '2026-05-01T00:00:00.000Z';

function entry(points: number, ref: string): LedgerEntryInput {
  return { type: points > 0 ? 'reward' : 'penalty', category: points > 0 ? 'finding_fixed' : 'false_positive', points, action: `outcome ${ref}`, source: 'scan_outcome', source_ref: ref };
}

function chainOf(points: readonly number[], keys: readonly (string | null)[]): LedgerTransaction[] {
  const chain: LedgerTransaction[] = [];
  points.forEach((p, i) => chain.push(nextTransaction(chain.at(-1) ?? null, entry(p, `o-${i}`), `2026-04-0${1 + (i % 9)}T00:00:00Z`, keys[i] ?? null)));
  return chain;
}

const pointsArb = fc.array(
  fc.integer({ min: 1, max: MAX_ABS_POINTS }).chain((m) => fc.constantFrom(m, -m)),
  { minLength: 1, maxLength: 12 },
);

/** What an attacker without the key can do to a row: re-hash it with SHA-256 (dropping the mark), keep the mark over a SHA-256, or use a key of their own. */
type Rehash = 'sha256' | 'sha256_marked' | 'other_key';
function forge(body: Omit<LedgerTransaction, 'hash'>, how: Rehash): LedgerTransaction {
  if (how === 'sha256') {
    const { hash_alg: _mark, ...plain } = body;
    return { ...plain, hash: transactionHash(plain) };
  }
  if (how === 'sha256_marked') return { ...body, hash: createHash('sha256').update(canonicalTransactionJson(body), 'utf8').digest('hex') };
  return { ...body, hash: transactionHash(body, OTHER_KEY) };
}

/** Edits row k and re-hashes it and every later row (re-linking them), as someone who can write the table would. */
function rewrite(chain: readonly LedgerTransaction[], k: number, patch: Partial<LedgerTransaction>, how: Rehash): LedgerTransaction[] {
  const out = chain.slice(0, k);
  for (const [i, tx] of chain.entries()) {
    if (i < k) continue;
    const previous = out.at(-1);
    const { hash: _old, ...body } = { ...tx, ...(i === k ? patch : {}) };
    const relinked = { ...body, prev_hash: previous ? previous.hash : body.prev_hash, running_total: (previous?.running_total ?? 0) + body.points };
    out.push(forge(relinked, how));
  }
  return out;
}

describe('keyed chain (HMAC-SHA256)', () => {
  test('golden: a keyed transaction is marked and its hash is HMAC-SHA256 over the canonical JSON, the mark included', () => {
    const tx = nextTransaction(null, entry(100, 'o-1'), '2026-01-02T03:04:05Z', KEY);
    expect(tx.hash_alg).toBe(KEYED_HASH_ALG);
    const { hash: _h, ...body } = tx;
    expect(canonicalTransactionJson(body).endsWith(`"hash_alg":"${KEYED_HASH_ALG}"}`)).toBe(true);
    expect(tx.hash).toBe(createHmac('sha256', KEY).update(canonicalTransactionJson(body), 'utf8').digest('hex'));
    expect(transactionHash(body, KEY)).toBe(tx.hash);
  });

  test('an unkeyed transaction is hashed exactly as before keys existed (no mark)', () => {
    const tx = nextTransaction(null, entry(100, 'o-1'), '2026-01-02T03:04:05Z');
    expect('hash_alg' in tx).toBe(false);
    const { hash: _h, ...body } = tx;
    expect(tx.hash).toBe(createHash('sha256').update(canonicalTransactionJson(body), 'utf8').digest('hex'));
  });

  test('a keyed chain verifies with its key; without one, or with another, it does not', () => {
    const chain = chainOf([100, -70, 50], [KEY, KEY, KEY]);
    expect(verifyChain(chain, KEY)).toEqual({ ok: true, count: 3, total: 80, keyed: 3 });
    expect(verifyChain(chain)).toMatchObject({ ok: false, checked: 0, first: { id: 'tx-1', code: 'key_required' } });
    expect(verifyChain(chain, OTHER_KEY)).toMatchObject({ ok: false, checked: 0, first: { id: 'tx-1', code: 'bad_hash' } });
  });

  test('an existing unkeyed ledger keeps verifying, and goes on keyed once a key is set', () => {
    const chain = chainOf([100, -70, 50, 100], [null, null, KEY, KEY]);
    expect(verifyChain(chain, KEY)).toEqual({ ok: true, count: 4, total: 180, keyed: 2 });
    expect(verifyChain(chain.slice(0, 2))).toEqual({ ok: true, count: 2, total: 30, keyed: 0 });
  });

  test('an unkeyed row after a keyed one is a forgery, even when its own hash is right', () => {
    const chain = chainOf([100, -70, 50], [KEY, KEY, null]);
    expect(verifyChain(chain, KEY)).toMatchObject({ ok: false, checked: 2, first: { id: 'tx-3', code: 'unkeyed_after_keyed' } });
  });

  test('an unknown hash_alg is refused', () => {
    const [tx] = chainOf([100], [KEY]) as [LedgerTransaction];
    expect(verifyChain([{ ...tx, hash_alg: 'md5' as typeof KEYED_HASH_ALG }], KEY)).toMatchObject({ ok: false, first: { code: 'bad_hash' } });
  });

  const FIELDS = ['id', 'sequence', 'timestamp', 'type', 'category', 'points', 'action', 'source', 'source_ref', 'running_total', 'verified', 'prev_hash', 'hash', 'hash_alg'] as const;
  function edit(tx: LedgerTransaction, field: (typeof FIELDS)[number]): Partial<LedgerTransaction> {
    const flip = (hex: string) => hex.slice(0, -1) + (hex.endsWith('0') ? '1' : '0');
    const edits: Record<(typeof FIELDS)[number], Partial<LedgerTransaction>> = {
      id: { id: `${tx.id}0` },
      sequence: { sequence: tx.sequence + 1 },
      timestamp: { timestamp: tx.timestamp.replace(/Z$/, '+00:00') },
      type: { type: tx.type === 'reward' ? 'penalty' : 'reward' },
      category: { category: `${tx.category}_x` },
      points: { points: tx.points + Math.sign(tx.points) },
      action: { action: `${tx.action}.` },
      source: { source: `${tx.source}_x` },
      source_ref: { source_ref: `${tx.source_ref}x` },
      running_total: { running_total: tx.running_total + 1 },
      verified: { verified: !tx.verified },
      prev_hash: { prev_hash: flip(tx.prev_hash) },
      hash: { hash: flip(tx.hash) },
      hash_alg: { hash_alg: undefined },
    };
    return edits[field];
  }

  test('property: any tampered field of any keyed transaction fails verification at that transaction', () => {
    fc.assert(
      fc.property(pointsArb, fc.nat(), fc.constantFrom(...FIELDS), (points, pick, field) => {
        const chain = chainOf(points, points.map(() => KEY));
        const k = pick % chain.length;
        const tampered = chain.map((tx, i) => (i === k ? { ...tx, ...edit(tx, field) } : tx));
        const result = verifyChain(tampered, KEY);
        expect(result.ok).toBe(false);
        expect(result).toMatchObject({ checked: k });
      }),
    );
  });

  test('property: a table edited and re-hashed without the key fails against the key (from the edited row on, or by its checkpoint when every row was rewritten)', () => {
    fc.assert(
      fc.property(pointsArb, fc.nat(), fc.constantFrom<Rehash>('sha256', 'sha256_marked', 'other_key'), fc.integer({ min: 1, max: 1_000 }), (points, pick, how, delta) => {
        const chain = chainOf(points, points.map(() => KEY));
        const checkpoint = makeCheckpoint(AGENT, chain, AT, KEY);
        const k = pick % chain.length;
        const target = chain[k] as LedgerTransaction;
        const forged = rewrite(chain, k, { points: target.points > 0 ? target.points + delta : target.points - delta }, how);
        // Against the signed checkpoint every rewrite fails, the whole table re-hashed included.
        expect(verifyAgainstCheckpoint(forged, checkpoint, KEY, AGENT).ok).toBe(false);
        // Every row rewritten as plain SHA-256 is a chain of its own, but no longer a keyed one (keyed: 0);
        // any other rewrite fails at the edited row.
        const wholeTableUnkeyed = how === 'sha256' && k === 0;
        expect(verifyChain(forged, KEY)).toMatchObject(wholeTableUnkeyed ? { ok: true, keyed: 0 } : { ok: false, checked: k });
      }),
    );
  });
});

describe('signed checkpoints', () => {
  const chain = chainOf([100, -70, 50, 100, -20], [KEY, KEY, KEY, KEY, KEY]);
  const checkpoint = makeCheckpoint(AGENT, chain.slice(0, 3), AT, KEY);

  test('golden: a checkpoint names the head and is signed over its fields in a fixed order', () => {
    expect(checkpoint).toMatchObject({ version: 1, agent_id: AGENT, sequence: 3, running_total: 80, head_hash: chain[2]?.hash, at: AT });
    const body = `{"version":1,"agent_id":"${AGENT}","sequence":3,"running_total":80,"head_hash":"${chain[2]?.hash}","at":"${AT}"}`;
    expect(checkpoint.mac).toBe(createHmac('sha256', KEY).update(body, 'utf8').digest('hex'));
    expect(checkpointSchema.parse(JSON.parse(JSON.stringify(checkpoint)))).toEqual(checkpoint);
  });

  test('the ledger it was made of, and that ledger grown, verify against it', () => {
    expect(verifyAgainstCheckpoint(chain.slice(0, 3), checkpoint, KEY, AGENT)).toEqual({ ok: true, sequence: 3, running_total: 80 });
    expect(verifyAgainstCheckpoint(chain, checkpoint, KEY, AGENT)).toEqual({ ok: true, sequence: 3, running_total: 80 });
    const empty = makeCheckpoint(AGENT, [], AT, KEY);
    expect(verifyAgainstCheckpoint(chain, empty, KEY, AGENT)).toEqual({ ok: true, sequence: 0, running_total: 0 });
  });

  const cases: [string, LedgerTransaction[], LedgerCheckpoint, string, string][] = [
    ['rows up to it deleted', chain.slice(0, 2), checkpoint, KEY, 'rows_missing'],
    ['the checkpoint signed with another key', chain, makeCheckpoint(AGENT, chain.slice(0, 3), AT, OTHER_KEY), KEY, 'forged_checkpoint'],
    ['the checkpoint of another agent', chain, makeCheckpoint('00000000-0000-4000-8000-000000000002', chain.slice(0, 3), AT, KEY), KEY, 'other_agent'],
    ['a row before it edited', chain.map((tx, i) => (i === 1 ? { ...tx, action: 'changed' } : tx)), checkpoint, KEY, 'chain_broken'],
    ['the whole table rewritten as plain SHA-256', rewrite(chain, 0, { action: 'changed' }, 'sha256'), checkpoint, KEY, 'head_differs'],
  ];
  test.each(cases)('%s: refused', (_name, txs, c, key, code) => {
    expect(verifyAgainstCheckpoint(txs, c, key, AGENT)).toMatchObject({ ok: false, code });
  });

  const SIGNED = ['version', 'agent_id', 'sequence', 'running_total', 'head_hash', 'at', 'mac'] as const;
  test('property: a checkpoint with any field changed is refused as forged', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SIGNED), fc.integer({ min: 1, max: 1_000 }), (field, n) => {
        const flip = (hex: string) => hex.slice(0, -1) + (hex.endsWith('0') ? '1' : '0');
        const changed: Record<(typeof SIGNED)[number], Partial<LedgerCheckpoint>> = {
          version: { version: 2 as 1 },
          agent_id: { agent_id: `${AGENT.slice(0, -1)}9` },
          sequence: { sequence: checkpoint.sequence + n },
          running_total: { running_total: checkpoint.running_total + n },
          head_hash: { head_hash: flip(checkpoint.head_hash) },
          at: { at: new Date(Date.parse(AT) + n * 1000).toISOString() },
          mac: { mac: flip(checkpoint.mac) },
        };
        const result = verifyAgainstCheckpoint(chain, { ...checkpoint, ...changed[field] }, KEY, AGENT);
        expect(result).toMatchObject({ ok: false, code: 'forged_checkpoint' });
      }),
    );
  });

  test('the MAC is over every signed field: changing one changes it', () => {
    const { mac: _m, ...body } = checkpoint;
    expect(checkpointMac({ ...body, running_total: 81 }, KEY)).not.toBe(checkpoint.mac);
  });
});

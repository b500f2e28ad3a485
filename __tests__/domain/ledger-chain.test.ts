import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import {
  canonicalTransactionJson,
  checkEntry,
  GENESIS_PREV_HASH,
  HASHED_FIELD_ORDER,
  LEDGER_CATEGORY_PATTERN,
  type LedgerEntryInput,
  type LedgerTransaction,
  MAX_ABS_POINTS,
  nextTransaction,
  transactionHash,
} from '../../src/ledger/model/chain';
import { type ChainProblemCode, verifyChain } from '../../src/ledger/model/chain-check';

const REGISTRY: ReadonlySet<string> = new Set(['zero_duplication', 'validation_failure', 'autonomous_recovery', 'mcp_omission']);

function entry(type: 'reward' | 'penalty', category: string, points: number, action = `${category} ${points}`): LedgerEntryInput {
  return { type, category, points, action, source: 'scan_outcome', source_ref: `out-${category}-${points}` };
}

function buildChain(rows: readonly (readonly [LedgerEntryInput, string])[]): LedgerTransaction[] {
  const chain: LedgerTransaction[] = [];
  for (const [e, ts] of rows) chain.push(nextTransaction(chain.at(-1) ?? null, e, ts));
  return chain;
}

/** A copy of `tx` with `patch` applied and its hash recomputed, as a careful forger would. */
function rehashed(tx: LedgerTransaction, patch: Partial<LedgerTransaction>): LedgerTransaction {
  const { hash: _old, ...body } = { ...tx, ...patch };
  return { ...body, hash: transactionHash(body) };
}

function at(chain: readonly LedgerTransaction[], index: number): LedgerTransaction {
  const tx = chain[index];
  if (tx === undefined) throw new RangeError(`no transaction at ${index}`);
  return tx;
}

const entryArb: fc.Arbitrary<LedgerEntryInput> = fc
  .record({
    type: fc.constantFrom('reward' as const, 'penalty' as const),
    category: fc.constantFrom(...REGISTRY),
    magnitude: fc.integer({ min: 1, max: MAX_ABS_POINTS }),
    action: fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim() !== ''),
    source: fc.constantFrom('scan_outcome', 'trajectory', 'rule'),
    source_ref: fc.uuid(),
  })
  .map(({ magnitude, ...e }) => ({ ...e, points: e.type === 'reward' ? magnitude : -magnitude }));

const timestampArb = fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) }).map((ms) => new Date(ms).toISOString());

const chainArb = (minLength: number) => fc.array(fc.tuple(entryArb, timestampArb), { minLength, maxLength: 20 }).map(buildChain);

const FIVE = buildChain([
  [entry('reward', 'zero_duplication', 25), '2026-03-01T09:00:00Z'],
  [entry('penalty', 'validation_failure', -10), '2026-03-01T09:30:00Z'],
  [entry('reward', 'autonomous_recovery', 40), '2026-03-02T10:00:00Z'],
  [entry('penalty', 'mcp_omission', -5), '2026-03-02T10:05:00Z'],
  [entry('reward', 'zero_duplication', 15), '2026-03-02T10:10:00Z'],
]);

describe('transactionHash', () => {
  const tx = nextTransaction(
    null,
    { type: 'reward', category: 'zero_duplication', points: 25, action: 'Updated test instead of creating new', source: 'scan_outcome', source_ref: 'out-1' },
    '2026-01-02T03:04:05Z',
  );

  test('golden: SHA-256 of the canonical JSON of the first transaction', () => {
    // Pinned once; `printf '%s' '<the JSON below>' | sha256sum` gives the same digest.
    expect(canonicalTransactionJson(tx)).toBe(
      '{"id":"tx-1","sequence":1,"timestamp":"2026-01-02T03:04:05Z","type":"reward","category":"zero_duplication",' +
        '"points":25,"action":"Updated test instead of creating new","source":"scan_outcome","source_ref":"out-1",' +
        `"running_total":25,"verified":true,"prev_hash":"${'0'.repeat(64)}"}`,
    );
    expect(tx.hash).toBe('b4b9ab4e555bf9d4ed774eb4a67fe9b4a82ae95b1735a8e82755c65855258197');
    expect(transactionHash(tx)).toBe(tx.hash);
  });

  test('the canonical order is fixed: key order of the input and unknown fields do not matter', () => {
    const { hash: _h, ...body } = tx;
    const reversed = Object.fromEntries(Object.entries(body).reverse()) as typeof body;
    expect(transactionHash(reversed)).toBe(tx.hash);
    expect(transactionHash({ ...body, extra: 'ignored' } as typeof body)).toBe(tx.hash);
  });

  test('HASHED_FIELD_ORDER is every field of a transaction but hash, in printed order, then hash_alg (absent from SHA-256 rows)', () => {
    expect(HASHED_FIELD_ORDER).toEqual([...Object.keys(tx).filter((k) => k !== 'hash'), 'hash_alg'] as typeof HASHED_FIELD_ORDER);
  });
});

describe('nextTransaction', () => {
  test('golden: the first two links', () => {
    const [first, second] = [at(FIVE, 0), at(FIVE, 1)];
    expect(first).toMatchObject({ id: 'tx-1', sequence: 1, running_total: 25, verified: true, prev_hash: GENESIS_PREV_HASH });
    expect(second).toMatchObject({ id: 'tx-2', sequence: 2, running_total: 15, verified: true, prev_hash: first.hash });
    expect(second).toMatchObject({ type: 'penalty', category: 'validation_failure', points: -10, timestamp: '2026-03-01T09:30:00Z' });
    expect(FIVE.map((tx) => tx.running_total)).toEqual([25, 15, 55, 50, 65]); // 25, -10, +40, -5, +15
  });

  const refused: [string, LedgerEntryInput, string, RegExp][] = [
    ['a reward with negative points', entry('reward', 'zero_duplication', -5), '2026-01-01T00:00:00Z', /reward must have points > 0/],
    ['a penalty with positive points', entry('penalty', 'mcp_omission', 5), '2026-01-01T00:00:00Z', /penalty must have points < 0/],
    ['zero points', entry('reward', 'zero_duplication', 0), '2026-01-01T00:00:00Z', /non-zero integer/],
    ['fractional points', entry('reward', 'zero_duplication', 2.5), '2026-01-01T00:00:00Z', /non-zero integer/],
    ['a category off the pattern', entry('reward', 'Zero-Dup', 5), '2026-01-01T00:00:00Z', /category must be/],
    ['an empty action', { ...entry('reward', 'zero_duplication', 5), action: ' ' }, '2026-01-01T00:00:00Z', /action must be a non-empty string/],
    ['a timestamp without a zone', entry('reward', 'zero_duplication', 5), '2026-01-01T00:00:00', /timestamp must be an ISO-8601/],
    ['a timestamp on 30 February', entry('reward', 'zero_duplication', 5), '2026-02-30T00:00:00Z', /timestamp must be an ISO-8601/],
  ];
  test.each(refused)('throws a RangeError on %s', (_name, e, ts, message) => {
    expect(() => nextTransaction(null, e, ts)).toThrow(message);
    expect(() => nextTransaction(null, e, ts)).toThrow(RangeError);
  });

  test('throws when the running total would leave the safe integers', () => {
    const huge = { ...at(FIVE, 0), running_total: Number.MAX_SAFE_INTEGER };
    expect(() => nextTransaction(huge, entry('reward', 'zero_duplication', 2), '2026-01-01T00:00:00Z')).toThrow(/safe integer/);
  });
});

describe('checkEntry', () => {
  const good = entry('reward', 'zero_duplication', 25);

  test('accepts a good entry and keeps only the six entry fields', () => {
    expect(checkEntry({ ...good, verified: false, running_total: 9 }, REGISTRY)).toEqual({ ok: true, entry: good });
  });

  // [name, input, code, field, message fragment]
  const table: [string, unknown, string, string, string][] = [
    ['null', null, 'not_an_object', '(entry)', 'entry must be an object'],
    ['an array', [good], 'not_an_object', '(entry)', 'entry must be an object'],
    ['an unknown type', { ...good, type: 'bonus' }, 'invalid_type', 'type', 'type must be one of reward, penalty (got "bonus")'],
    ['a missing type', { ...good, type: undefined }, 'invalid_type', 'type', 'reward, penalty (got undefined)'],
    ['an uppercase category', { ...good, category: 'Zero_duplication' }, 'invalid_category', 'category', 'matching ^[a-z_]+$'],
    ['an empty category', { ...good, category: '' }, 'invalid_category', 'category', 'lowercase letters or underscores'],
    ['a 65-character category', { ...good, category: 'a'.repeat(65) }, 'invalid_category', 'category', '1 to 64'],
    [
      'an unregistered category',
      { ...good, category: 'made_up' },
      'unregistered_category',
      'category',
      '"made_up" is not registered (registered: autonomous_recovery, mcp_omission, validation_failure, zero_duplication)',
    ],
    ['points as a string', { ...good, points: '25' }, 'invalid_points', 'points', 'non-zero integer from -1000000 to 1000000 (got "25")'],
    ['zero points', { ...good, points: 0 }, 'invalid_points', 'points', 'non-zero integer'],
    ['NaN points', { ...good, points: Number.NaN }, 'invalid_points', 'points', '(got NaN)'],
    ['fractional points', { ...good, points: 1.5 }, 'invalid_points', 'points', '(got 1.5)'],
    ['too many points', { ...good, points: MAX_ABS_POINTS + 1 }, 'invalid_points', 'points', 'non-zero integer'],
    ['a reward below zero', { ...good, points: -25 }, 'sign_mismatch', 'points', 'a reward must have points > 0 (got -25)'],
    ['a penalty above zero', { ...good, type: 'penalty', points: 25 }, 'sign_mismatch', 'points', 'a penalty must have points < 0 (got 25)'],
    ['a missing action', { ...good, action: undefined }, 'invalid_text', 'action', 'action must be a non-empty string'],
    ['a blank source', { ...good, source: '  ' }, 'invalid_text', 'source', 'source must be a non-empty string'],
    ['a numeric source_ref', { ...good, source_ref: 7 }, 'invalid_text', 'source_ref', 'source_ref must be a non-empty string (got 7)'],
    ['a 1001-character action', { ...good, action: 'x'.repeat(1001) }, 'text_too_long', 'action', 'at most 1000 characters (got 1001)'],
    ['a 65-character source', { ...good, source: 's'.repeat(65) }, 'text_too_long', 'source', 'at most 64 characters'],
    ['a 257-character source_ref', { ...good, source_ref: 'r'.repeat(257) }, 'text_too_long', 'source_ref', 'at most 256 characters'],
  ];
  test.each(table)('refuses %s', (_name, input, code, field, fragment) => {
    const result = checkEntry(input, REGISTRY);
    expect(result).toMatchObject({ ok: false, code, field });
    expect(result).toHaveProperty('message', expect.stringContaining(fragment));
  });

  test('says so when no category is registered', () => {
    expect(checkEntry(good, new Set())).toMatchObject({ ok: false, code: 'unregistered_category', message: expect.stringContaining('no categories are registered') });
  });

  test('property: a registered category with points of the type’s sign is accepted unchanged', () => {
    fc.assert(
      fc.property(entryArb, (e) => {
        expect(checkEntry(e, REGISTRY)).toEqual({ ok: true, entry: e });
      }),
    );
  });

  test('property: the opposite sign is always refused as sign_mismatch on points', () => {
    fc.assert(
      fc.property(entryArb, (e) => {
        expect(checkEntry({ ...e, points: -e.points }, REGISTRY)).toMatchObject({ ok: false, code: 'sign_mismatch', field: 'points' });
      }),
    );
  });

  test('LEDGER_CATEGORY_PATTERN is snake_case letters only', () => {
    expect(['a', 'zero_duplication', '_'].map((c) => LEDGER_CATEGORY_PATTERN.test(c))).toEqual([true, true, true]);
    expect(['', 'A', 'a1', 'a-b', 'a b'].map((c) => LEDGER_CATEGORY_PATTERN.test(c))).toEqual([false, false, false, false, false]);
  });
});

describe('verifyChain', () => {
  test('an empty ledger verifies with total 0', () => {
    expect(verifyChain([])).toEqual({ ok: true, count: 0, total: 0, keyed: 0 });
  });

  test('golden: the five-transaction ledger verifies, total 25 - 10 + 40 - 5 + 15 = 65', () => {
    expect(verifyChain(FIVE)).toEqual({ ok: true, count: 5, total: 65, keyed: 0 });
  });

  const replace = (index: number, tx: LedgerTransaction) => FIVE.map((t, i) => (i === index ? tx : t));
  const without = (index: number) => FIVE.filter((_, i) => i !== index);
  const forgedSixth = rehashed(nextTransaction(at(FIVE, 4), entry('reward', 'zero_duplication', 500), '2026-03-03T00:00:00Z'), { prev_hash: 'f'.repeat(64) });
  const insertedThird = nextTransaction(at(FIVE, 1), entry('reward', 'zero_duplication', 900), '2026-03-01T09:40:00Z');

  // [tamper, chain, sequence named, code, transactions that passed before it]
  const tampers: [string, LedgerTransaction[], number, ChainProblemCode, number][] = [
    ['points of tx-3 changed', replace(2, { ...at(FIVE, 2), points: 400 }), 3, 'bad_hash', 2],
    ['tx-3 deleted', without(2), 4, 'sequence_gap', 2],
    ['tx-1 deleted', without(0), 2, 'sequence_gap', 0],
    ['tx-2 and tx-3 swapped', [at(FIVE, 0), at(FIVE, 2), at(FIVE, 1), at(FIVE, 3), at(FIVE, 4)], 3, 'sequence_gap', 1],
    ['category of tx-2 edited', replace(1, { ...at(FIVE, 1), category: 'mcp_omission' }), 2, 'bad_hash', 1],
    ['action of tx-2 edited, hash recomputed', replace(1, rehashed(at(FIVE, 1), { action: 'nothing happened' })), 3, 'broken_link', 2],
    ['running_total of tx-4 edited', replace(3, { ...at(FIVE, 3), running_total: 500 }), 4, 'bad_hash', 3],
    ['running_total of tx-4 edited, hash recomputed', replace(3, rehashed(at(FIVE, 3), { running_total: 500 })), 4, 'bad_running_total', 3],
    ['points of tx-4 edited, hash recomputed', replace(3, rehashed(at(FIVE, 3), { points: -1 })), 4, 'bad_running_total', 3],
    ['tx-6 appended with a forged prev_hash', [...FIVE, forgedSixth], 6, 'broken_link', 5],
    ['tx-1 re-rooted on a forged prev_hash', replace(0, rehashed(at(FIVE, 0), { prev_hash: '1'.repeat(64) })), 1, 'broken_link', 0],
    ['tx-2 repeated', [at(FIVE, 0), at(FIVE, 1), at(FIVE, 1), at(FIVE, 2)], 2, 'duplicate_id', 2],
    ['a forged tx-3 inserted before the real one', [at(FIVE, 0), at(FIVE, 1), insertedThird, at(FIVE, 2)], 3, 'duplicate_id', 3],
    ['id of tx-3 edited', replace(2, { ...at(FIVE, 2), id: 'tx-30' }), 3, 'bad_id', 2],
    ['sequence of tx-3 edited, hash recomputed', replace(2, rehashed(at(FIVE, 2), { sequence: 30 })), 30, 'bad_id', 2],
    ['verified of tx-5 flipped', replace(4, { ...at(FIVE, 4), verified: false }), 5, 'bad_hash', 4],
    ['type of tx-5 flipped, hash recomputed', replace(4, rehashed(at(FIVE, 4), { type: 'penalty' })), 5, 'bad_sign', 4],
    ['category of tx-5 off the pattern, hash recomputed', replace(4, rehashed(at(FIVE, 4), { category: 'Zero-Dup' })), 5, 'bad_category', 4],
  ];
  test.each(tampers)('%s is named with the right sequence and code', (_name, chain, sequence, code, checked) => {
    expect(verifyChain(chain)).toMatchObject({ ok: false, first: { sequence, code }, checked });
  });

  test('messages name the transaction and the numbers', () => {
    const result = verifyChain(FIVE.map((t, i) => (i === 3 ? rehashed(t, { running_total: 500 }) : t)));
    expect(result).toMatchObject({ ok: false, first: { id: 'tx-4', message: 'tx-4: running_total 500 must be 55 + -5 = 50' } });
  });

  test('the head is the caller’s anchor: an edited, rehashed last row verifies but changes the last hash', () => {
    const edited = FIVE.map((t, i) => (i === 4 ? rehashed(t, { action: 'rewritten' }) : t));
    expect(verifyChain(edited)).toEqual({ ok: true, count: 5, total: 65, keyed: 0 });
    expect(at(edited, 4).hash).not.toBe(at(FIVE, 4).hash);
  });

  test('property: a chain of appended valid entries verifies; each running total is the sum of points so far', () => {
    fc.assert(
      fc.property(chainArb(0), (chain) => {
        const prefixSums = chain.map((_, i) => chain.slice(0, i + 1).reduce((sum, tx) => sum + tx.points, 0));
        expect(chain.map((tx) => tx.running_total)).toEqual(prefixSums);
        expect(verifyChain(chain)).toEqual({ ok: true, count: chain.length, total: prefixSums.at(-1) ?? 0, keyed: 0 });
      }),
    );
  });

  /** A different value of the same type for each field. */
  const EDIT: Record<keyof LedgerTransaction, (tx: LedgerTransaction) => Partial<LedgerTransaction>> = {
    id: (tx) => ({ id: `${tx.id}0` }),
    sequence: (tx) => ({ sequence: tx.sequence + 1 }),
    timestamp: (tx) => ({ timestamp: tx.timestamp.replace(/Z$/, '+00:00') }),
    type: (tx) => ({ type: tx.type === 'reward' ? 'penalty' : 'reward' }),
    category: (tx) => ({ category: `${tx.category}_x` }),
    points: (tx) => ({ points: tx.points + Math.sign(tx.points) }),
    action: (tx) => ({ action: `${tx.action}.` }),
    source: (tx) => ({ source: `${tx.source}_edited` }),
    source_ref: (tx) => ({ source_ref: `${tx.source_ref}x` }),
    running_total: (tx) => ({ running_total: tx.running_total + 1 }),
    verified: (tx) => ({ verified: !tx.verified }),
    prev_hash: (tx) => ({ prev_hash: flipLastHex(tx.prev_hash) }),
    hash_alg: () => ({ hash_alg: 'hmac-sha256' }),
    hash: (tx) => ({ hash: flipLastHex(tx.hash) }),
  };
  function flipLastHex(hex: string): string {
    return hex.slice(0, -1) + (hex.endsWith('0') ? '1' : '0');
  }

  /** Where an edit is caught when left as is: id and sequence by the id rule, the rest by the hash. */
  const PLAIN_EDIT_CODE: Record<keyof LedgerTransaction, ChainProblemCode> = {
    id: 'bad_id',
    sequence: 'bad_id',
    timestamp: 'bad_hash',
    type: 'bad_hash',
    category: 'bad_hash',
    points: 'bad_hash',
    action: 'bad_hash',
    source: 'bad_hash',
    source_ref: 'bad_hash',
    running_total: 'bad_hash',
    verified: 'bad_hash',
    prev_hash: 'bad_hash',
    hash_alg: 'key_required',
    hash: 'bad_hash',
  };

  /** Where an edit is caught after its hash is recomputed: offset 0 = the edited row, 1 = the next. */
  const REHASHED_EDIT: Record<Exclude<keyof LedgerTransaction, 'hash' | 'hash_alg'>, [0 | 1, ChainProblemCode]> = {
    id: [0, 'bad_id'],
    sequence: [0, 'bad_id'],
    timestamp: [1, 'broken_link'],
    type: [0, 'bad_sign'],
    category: [1, 'broken_link'],
    points: [0, 'bad_running_total'],
    action: [1, 'broken_link'],
    source: [1, 'broken_link'],
    source_ref: [1, 'broken_link'],
    running_total: [0, 'bad_running_total'],
    verified: [1, 'broken_link'],
    prev_hash: [0, 'broken_link'],
  };

  test('property: any single-field edit of any transaction is caught at that transaction', () => {
    const fields = Object.keys(EDIT) as (keyof LedgerTransaction)[];
    fc.assert(
      fc.property(chainArb(1), fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(...fields), (chain, f, field) => {
        const k = Math.floor(f * chain.length) % chain.length;
        const target = at(chain, k);
        const tampered = chain.map((tx, i) => (i === k ? { ...tx, ...EDIT[field](tx) } : tx));
        expect(tampered[k]).not.toEqual(target);
        expect(verifyChain(tampered)).toMatchObject({ ok: false, checked: k, first: { code: PLAIN_EDIT_CODE[field] } });
      }),
    );
  });

  test('property: an edit with its hash recomputed is caught at that transaction or the next', () => {
    const fields = Object.keys(REHASHED_EDIT) as (keyof typeof REHASHED_EDIT)[];
    fc.assert(
      fc.property(chainArb(2), fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(...fields), (chain, f, field) => {
        const k = Math.floor(f * (chain.length - 1)) % (chain.length - 1);
        const [offset, code] = REHASHED_EDIT[field];
        const tampered = chain.map((tx, i) => (i === k ? rehashed(tx, EDIT[field](tx)) : tx));
        expect(verifyChain(tampered)).toMatchObject({ ok: false, checked: k + offset, first: { code, sequence: at(tampered, k + offset).sequence } });
      }),
    );
  });
});

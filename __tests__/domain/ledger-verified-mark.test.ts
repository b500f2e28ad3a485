// A verified mark a reconciliation stores for the next process is taken only when signed with the
// ledger secret for this agent, and only while the transaction it names is there as it was hashed.
import { describe, expect, test } from 'bun:test';
import { type LedgerEntryInput, type LedgerTransaction, nextTransaction } from '../../src/ledger/model/chain';
import { ChainVerifier, type VerifiedMark } from '../../src/ledger/model/chain-check';
import { resumableMark, signVerifiedMark, type StoredVerifiedMark } from '../../src/ledger/model/verified-mark';

const KEY = 'k'.repeat(32);
const AGENT = '00000000-0000-4000-8000-000000000001';
const OTHER_AGENT = '00000000-0000-4000-8000-000000000002';

function entry(points: number, ref: string): LedgerEntryInput {
  return { type: points > 0 ? 'reward' : 'penalty', category: points > 0 ? 'finding_fixed' : 'false_positive', points, action: `outcome ${ref}`, source: 'scan_outcome', source_ref: ref };
}

/** Five transactions, the first two unkeyed (written before the secret was set), the rest keyed. */
function chain(): LedgerTransaction[] {
  const txs: LedgerTransaction[] = [];
  [3, -2, 5, 1, -4].forEach((points, i) => txs.push(nextTransaction(txs.at(-1) ?? null, entry(points, `o-${i}`), '2026-04-01T00:00:00Z', i < 2 ? null : KEY)));
  return txs;
}

describe('a stored verified mark', () => {
  const txs = chain();
  const mark = new ChainVerifier(KEY).add(txs.slice(0, 4)).mark as VerifiedMark;
  const stored = signVerifiedMark(mark, AGENT, KEY);

  test('signed as verified, it is taken with the transaction now at its sequence, and verification goes on from it as from the mark itself', () => {
    expect(stored).toMatchObject({ sequence: 4, hash: txs[3]?.hash, keyed: 2 });
    const resumed = resumableMark(stored, txs[3] as LedgerTransaction, AGENT, KEY);
    expect(resumed).toEqual(mark);
    const goneOn = ChainVerifier.resume(KEY, resumed).add(txs.slice(4)).result();
    expect(goneOn).toEqual(new ChainVerifier(KEY).add(txs).result());
  });

  test('any field changed without the key, another agent, or another key: not taken', () => {
    const changed: StoredVerifiedMark[] = [
      { ...stored, sequence: 5, hash: txs[4]?.hash as string },
      { ...stored, keyed: 3 },
      { ...stored, mac: stored.mac.replace(/^./, (c) => (c === '0' ? '1' : '0')) },
      { ...stored, mac: 'not hex' },
    ];
    for (const mark of changed) expect(resumableMark(mark, txs[mark.sequence - 1] as LedgerTransaction, AGENT, KEY)).toBeNull();
    expect(resumableMark(stored, txs[3] as LedgerTransaction, OTHER_AGENT, KEY)).toBeNull();
    expect(resumableMark(stored, txs[3] as LedgerTransaction, AGENT, 'x'.repeat(32))).toBeNull();
    expect(resumableMark(signVerifiedMark(mark, AGENT, 'x'.repeat(32)), txs[3] as LedgerTransaction, AGENT, KEY)).toBeNull();
  });

  test('the transaction at its sequence gone, another one, or edited in place with its hash left: not taken', () => {
    const tx = txs[3] as LedgerTransaction;
    expect(resumableMark(stored, null, AGENT, KEY)).toBeNull();
    expect(resumableMark(stored, txs[4] as LedgerTransaction, AGENT, KEY)).toBeNull();
    // Its running total is what the next transaction is checked against.
    expect(resumableMark(stored, { ...tx, running_total: tx.running_total + 1 }, AGENT, KEY)).toBeNull();
    expect(resumableMark(stored, { ...tx, hash_alg: undefined }, AGENT, KEY)).toBeNull();
    expect(resumableMark(null, tx, AGENT, KEY)).toBeNull();
  });

  test('a mark on an unkeyed transaction (written before the secret was set) is taken like any other', () => {
    const early = new ChainVerifier(KEY).add(txs.slice(0, 2)).mark as VerifiedMark;
    expect(resumableMark(signVerifiedMark(early, AGENT, KEY), txs[1] as LedgerTransaction, AGENT, KEY)).toEqual(early);
  });
});

import { describe, expect, test } from 'bun:test';
import { type LedgerTransaction, nextTransaction } from '../../src/ledger/model/chain';
import { type LedgerEntryInput } from '../../src/ledger/model/chain';
import { diffAgainstSources } from '../../src/ledger/model/reconcile';

const entry = (ref: string, points: number, source = 'scan_outcome'): LedgerEntryInput => ({
  type: points > 0 ? 'reward' : 'penalty',
  category: points > 0 ? 'finding_fixed' : 'false_positive',
  points,
  action: 'a',
  source,
  source_ref: ref,
});

function chain(entries: readonly LedgerEntryInput[]): LedgerTransaction[] {
  const txs: LedgerTransaction[] = [];
  for (const e of entries) txs.push(nextTransaction(txs[txs.length - 1] ?? null, e, '2026-11-22T00:00:00Z'));
  return txs;
}

describe('diffAgainstSources', () => {
  test('a ledger that matches its sources has no differences', () => {
    const txs = chain([entry('a', 100), entry('b', -70)]);
    const expected = new Map([['scan_outcome', new Map([['a', entry('a', 100)], ['b', entry('b', -70)]])]]);
    expect(diffAgainstSources(txs, expected)).toEqual({ missing: [], unexpected: [], mismatched: [] });
  });

  test('missing, unexpected (unknown or repeated record) and mismatched entries are told apart', () => {
    const txs = chain([entry('a', 100), entry('a', 100), entry('x', 50), entry('b', -30), entry('t', 400, 'trajectory')]);
    const expected = new Map([['scan_outcome', new Map([['a', entry('a', 100)], ['b', entry('b', -70)], ['c', entry('c', 50)]])]]);
    const diff = diffAgainstSources(txs, expected);
    expect(diff.missing).toEqual([entry('c', 50)]);
    expect(diff.unexpected.map((r) => [r.id, r.source_ref])).toEqual([
      ['tx-2', 'a'],
      ['tx-3', 'x'],
    ]);
    expect(diff.mismatched).toEqual([{ sequence: 4, id: 'tx-4', source: 'scan_outcome', source_ref: 'b', points: -30, expected_points: -70 }]);
  });

  test('sources that are not reconciled are left alone', () => {
    const txs = chain([entry('t', 400, 'trajectory')]);
    expect(diffAgainstSources(txs, new Map())).toEqual({ missing: [], unexpected: [], mismatched: [] });
  });
});

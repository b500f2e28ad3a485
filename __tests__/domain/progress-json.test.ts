import { describe, expect, test } from 'bun:test';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { type LedgerTransaction, nextTransaction } from '../../src/ledger/model/chain';
import { type LedgerEntryInput } from '../../src/ledger/model/chain';
import { buildProgressJson, PROGRESS_JSON_SCHEMA } from '../../src/ledger/model/progress-json';

const ajv = new Ajv({ strict: false });
addFormats(ajv);
const validate = ajv.compile(PROGRESS_JSON_SCHEMA);

function chain(entries: readonly LedgerEntryInput[]): LedgerTransaction[] {
  const txs: LedgerTransaction[] = [];
  entries.forEach((e, i) => txs.push(nextTransaction(txs[txs.length - 1] ?? null, e, new Date(Date.UTC(2026, 10, 22, 0, 0, i)).toISOString())));
  return txs;
}
const entry = (points: number, category = points > 0 ? 'finding_fixed' : 'false_positive'): LedgerEntryInput => ({
  type: points > 0 ? 'reward' : 'penalty',
  category,
  points,
  action: 'test',
  source: 'scan_outcome',
  source_ref: 'o-1',
});

describe('progress.json', () => {
  test('golden: totals, categories, metrics, checksum and the log, newest first', () => {
    const txs = chain([entry(100), entry(-70), entry(50, 'finding_accepted')]);
    const doc = buildProgressJson(txs, 0, '2026-11-22T10:00:00.000Z') as { reinforcement_learning_ledger: Record<string, unknown>; transaction_log: { id: string; source_file: string }[] };
    expect(validate(doc)).toBe(true);
    expect(doc.reinforcement_learning_ledger).toMatchObject({
      total_score: 80,
      rewards: { total_earned: 150, by_category: { finding_accepted: 50, finding_fixed: 100 } },
      penalties: { total_incurred: -70, by_category: { false_positive: -70 } },
      // 150 / (150 + 70) = 68.18 %; 2 of 3 actions successful = 66.7 %
      metrics: { learning_efficiency: 68.2, actions_total: 3, actions_successful: 2, actions_failed: 1, success_rate: 66.7 },
      checksum_validation: { calculated_total: 80, stored_total: 80, is_valid: true, last_validated: '2026-11-22T10:00:00.000Z' },
    });
    expect(doc.transaction_log.map((t) => t.id)).toEqual(['tx-3', 'tx-2', 'tx-1']);
    expect(doc.transaction_log[0]?.source_file).toBe('scan_outcome:o-1');
  });

  test('an empty ledger is a valid document', () => {
    expect(validate(buildProgressJson([], 0, '2026-11-22T10:00:00.000Z'))).toBe(true);
  });

  test('the log keeps the newest 1,000 transactions', () => {
    const doc = buildProgressJson(chain(Array.from({ length: 1_005 }, () => entry(1))), 0, '2026-11-22T10:00:00.000Z') as { transaction_log: { id: string }[] };
    expect(validate(doc)).toBe(true);
    expect(doc.transaction_log).toHaveLength(1_000);
    expect(doc.transaction_log[0]?.id).toBe('tx-1005');
    expect(doc.transaction_log[999]?.id).toBe('tx-6');
  });

  test('property: any ledger gives a document valid against the seed schema', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -500, max: 500 }).filter((p) => p !== 0), { maxLength: 40 }), (points) => {
        const ok = validate(buildProgressJson(chain(points.map((p) => entry(p))), 0, '2026-11-22T10:00:00.000Z'));
        expect(validate.errors ?? []).toEqual([]);
        expect(ok).toBe(true);
      }),
    );
  });

  test('the schema rejects what the seed forbids (a positive penalty total, a bad id)', () => {
    const doc = buildProgressJson(chain([entry(10)]), 0, '2026-11-22T10:00:00.000Z') as { reinforcement_learning_ledger: { penalties: { total_incurred: number } }; transaction_log: { id: string }[] };
    doc.reinforcement_learning_ledger.penalties.total_incurred = 5;
    expect(validate(doc)).toBe(false);
    doc.reinforcement_learning_ledger.penalties.total_incurred = 0;
    (doc.transaction_log[0] as { id: string }).id = 'tx-one';
    expect(validate(doc)).toBe(false);
  });
});

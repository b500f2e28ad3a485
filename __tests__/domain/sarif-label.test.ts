import { describe, expect, test } from 'bun:test';
import { MAX_TEXT_CHARS, OUTCOME_LABELS } from '../../src/scan/model/outcome';
import { parseSarif, SARIF_FALSE_POSITIVE_PATTERN, type SarifLabel, sarifLabel } from '../../src/scan/model/sarif';
import { type Json, LOCATED, logOf } from '../helpers/sarif-logs';

describe('sarifLabel', () => {
  const accepted = (justification?: string) => ({ kind: 'external', status: 'accepted', justification });
  const cases: [string, Json, SarifLabel][] = [
    ['nothing stated', {}, { label: null, reason: 'none' }],
    ['properties.label', { properties: { label: 'fixed' } }, { label: 'fixed', reason: 'properties.label' }],
    [
      'properties.label overrides a false-positive suppression',
      { properties: { label: 'reopened' }, suppressions: [accepted('false positive')] },
      { label: 'reopened', reason: 'properties.label' },
    ],
    ['an unknown properties.label', { properties: { label: 'wontfix' } }, { label: null, reason: 'properties.label:invalid' }],
    ['a null properties.label is absent', { properties: { label: null }, baselineState: 'absent' }, { label: 'fixed', reason: 'baseline:absent' }],
    ['a suppression without status or justification', { suppressions: [{ kind: 'inSource' }] }, { label: 'ignored', reason: 'suppression:accepted' }],
    [
      'an accepted suppression',
      { suppressions: [accepted('Accepted risk: internal tool only')] },
      { label: 'ignored', reason: 'suppression:accepted', notes: 'Accepted risk: internal tool only' },
    ],
    [
      'an accepted false-positive suppression',
      { suppressions: [accepted('False positive: input is sanitised upstream')] },
      { label: 'rejected_fp', reason: 'suppression:false_positive', notes: 'False positive: input is sanitised upstream' },
    ],
    [
      'any in-effect false-positive justification wins, all in-effect justifications noted',
      { suppressions: [accepted('accepted risk'), { kind: 'inSource', justification: 'FP per triage' }] },
      { label: 'rejected_fp', reason: 'suppression:false_positive', notes: 'accepted risk | FP per triage' },
    ],
    [
      'under review only',
      { suppressions: [{ kind: 'external', status: 'underReview', justification: 'checking with owner' }] },
      { label: null, reason: 'suppression:under_review', notes: 'checking with owner' },
    ],
    [
      'all rejected: the finding stands',
      { suppressions: [{ kind: 'external', status: 'rejected', justification: 'claimed false positive, it is real' }] },
      { label: 'accepted', reason: 'suppression:rejected', notes: 'claimed false positive, it is real' },
    ],
    [
      'accepted and under review: the accepted one is in effect',
      { suppressions: [{ status: 'underReview', justification: 'second look' }, accepted('accepted risk')] },
      { label: 'ignored', reason: 'suppression:accepted', notes: 'accepted risk' },
    ],
    [
      'under review and rejected',
      { suppressions: [{ status: 'rejected' }, { status: 'underReview' }] },
      { label: null, reason: 'suppression:under_review' },
    ],
    ['suppressions decide before the baseline', { suppressions: [{ status: 'rejected' }], baselineState: 'absent' }, { label: 'accepted', reason: 'suppression:rejected' }],
    ['baseline absent', { baselineState: 'absent' }, { label: 'fixed', reason: 'baseline:absent' }],
    ['empty suppressions fall through', { suppressions: [], baselineState: 'absent' }, { label: 'fixed', reason: 'baseline:absent' }],
    ['non-object suppressions are ignored', { suppressions: ['x', null] }, { label: null, reason: 'none' }],
    ['an unknown suppression status is ignored', { suppressions: [{ status: 'pending' }], baselineState: 'absent' }, { label: 'fixed', reason: 'baseline:absent' }],
    ['baseline new', { baselineState: 'new' }, { label: null, reason: 'none' }],
    ['baseline unchanged', { baselineState: 'unchanged' }, { label: null, reason: 'none' }],
    ['baseline updated', { baselineState: 'updated' }, { label: null, reason: 'none' }],
  ];

  test.each(cases)('%s', (_name, result, expected) => {
    expect(sarifLabel(result)).toEqual(expected);
  });

  test('notes are cut to MAX_TEXT_CHARS', () => {
    expect(sarifLabel({ suppressions: [accepted('x'.repeat(MAX_TEXT_CHARS + 10))] }).notes).toHaveLength(MAX_TEXT_CHARS);
  });

  test('an invalid properties.label is an error naming the allowed labels, and the result is dropped', () => {
    const parsed = parseSarif(logOf([{ ruleId: 'r', ...LOCATED, properties: { label: 'wontfix' } }]));
    expect(parsed.findings).toEqual([]);
    expect(parsed.errors).toEqual([{ path: 'runs[0].results[0]', field: 'properties.label', message: expect.stringContaining('"wontfix"') }]);
    for (const label of OUTCOME_LABELS) expect(parsed.errors[0]?.message).toContain(label);
  });
});

describe('SARIF_FALSE_POSITIVE_PATTERN', () => {
  test.each([
    'False positive',
    'false positives in generated code',
    'False-positive: input is validated',
    'FP',
    'marked as fp.',
    'not a real issue',
    'Not an issue',
    'not a bug',
    'not a problem',
    'not a vulnerability',
    'not a real vulnerability',
    'not exploitable: admin-only endpoint',
    'code path is unreachable',
    'Incorrectly flagged by the scanner',
    'incorrectly reported',
  ])('matches %p', (justification) => {
    expect(SARIF_FALSE_POSITIVE_PATTERN.test(justification)).toBe(true);
  });

  test.each(['fixed in PR 12', 'accepted risk', "won't fix", 'positive test', 'falsely', 'FPGA driver', 'ticket FP12', 'not a priority', 'exploitable only by admins', 'reachable only from tests'])(
    'does not match %p',
    (justification) => {
      expect(SARIF_FALSE_POSITIVE_PATTERN.test(justification)).toBe(false);
    },
  );

  test('is case-insensitive and stateless (no global or sticky flag)', () => {
    expect(SARIF_FALSE_POSITIVE_PATTERN.flags).toBe('i');
  });
});


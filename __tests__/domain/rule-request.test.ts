import { expect, test } from 'bun:test';
import { normaliseRuleId, parseRuleRequest } from '../../src/rules/model/request';

test.each([
  ['validate rule R-003', { verb: 'validate', ruleId: 'R-003' }],
  ['R-003 still holds', { verb: 'validate', ruleId: 'R-003' }],
  ['R-003 is right', { verb: 'validate', ruleId: 'R-003' }],
  ['rule R-003 is still correct.', { verb: 'validate', ruleId: 'R-003' }],
  ['Confirm the rule R-010, it still applies', { verb: 'validate', ruleId: 'R-010' }],
  ['retire rule R-002', { verb: 'retire', ruleId: 'R-002' }],
  ['drop R-002', { verb: 'retire', ruleId: 'R-002' }],
  ['please drop r-2.', { verb: 'retire', ruleId: 'R-002' }],
  ['R-002 is no longer needed', { verb: 'retire', ruleId: 'R-002' }],
  ['R-1234 is obsolete', { verb: 'retire', ruleId: 'R-1234' }],
  ['approve rule R-004', { verb: 'approve', ruleId: 'R-004' }],
  ['approve candidate R-004', { verb: 'approve', ruleId: 'R-004' }],
  ['Please approve the candidate rule r-4.', { verb: 'approve', ruleId: 'R-004' }],
  ['R-004 is approved', { verb: 'approve', ruleId: 'R-004' }],
  ['reject candidate R-005', { verb: 'reject', ruleId: 'R-005' }],
  ['reject rule R-5', { verb: 'reject', ruleId: 'R-005' }],
  // negated: nothing
  ["don't retire R-002", null],
  ['do not drop R-002', null],
  ['never drop R-002', null],
  ['R-003 no longer holds', null],
  ["R-003 isn’t right", null],
  ["R-003 doesn't hold", null],
  // unclear: nothing
  ['retire R-002 and R-003', null],
  ['validate R-3 then retire it', null],
  ['approve R-4, or reject it', null],
  ["don't approve R-004", null],
  ['never accept R-004', null],
  ['what is R-003?', null],
  ['validate the rule', null],
  ['R-003 is wrong', null],
  ['retire the R2D2 droid', null],
] as const)('%p -> %p', (text, expected) => {
  expect(parseRuleRequest(text)).toEqual(expected);
});

test.each([
  ['R-003', 'R-003'],
  ['r-3', 'R-003'],
  ['R3', 'R-003'],
  [' R-1000 ', 'R-1000'],
  ['L-003', null],
  ['R-', null],
  ['3', null],
] as const)('normaliseRuleId(%p) = %p', (raw, expected) => {
  expect(normaliseRuleId(raw)).toBe(expected);
});

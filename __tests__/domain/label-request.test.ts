import { describe, expect, test } from 'bun:test';
import { parseLabelRequest } from '../../src/scan/model/label-request';

describe('parseLabelRequest', () => {
  test.each([
    ['finding F-42 is a false positive', 'F-42', 'rejected_fp'],
    ['Finding payments-api:semgrep:xss:12 was fixed.', 'payments-api:semgrep:xss:12', 'fixed'],
    ['payments-api:semgrep:xss:12 was fixed', 'payments-api:semgrep:xss:12', 'fixed'],
    ['`src/db.py:88` is not a real bug', 'src/db.py:88', 'rejected_fp'],
    ['"sql-fp-1" was fixed yesterday', 'sql-fp-1', 'fixed'],
    ['sql-fp-1 has been patched', 'sql-fp-1', 'fixed'],
    ['finding X-1 is a won\'t fix', 'X-1', 'ignored'],
    ['finding X-1: accepted risk, leave it', 'X-1', 'ignored'],
    ['finding X-2 is confirmed', 'X-2', 'accepted'],
    ['X-2 is real, please prioritise', 'X-2', 'accepted'],
    ['finding X-3 was reopened after the release', 'X-3', 'reopened'],
    ['X-3 came back in the new scan', 'X-3', 'reopened'],
    ['finding js/xss@src/a.ts:7, false-positive', 'js/xss@src/a.ts:7', 'rejected_fp'],
  ])('%s', (text, findingKey, label) => {
    expect(parseLabelRequest(text)).toEqual({ findingKey, label } as never);
  });

  test.each([
    ['what is a false positive?'],
    ['finding F-42 is not fixed yet'],
    ['finding F-42 isn\'t a false positive'],
    ['finding F-42 looks interesting'],
    ['we fixed the build'],
    ['hello there'],
    [''],
  ])('no request: %p', (text) => {
    expect(parseLabelRequest(text)).toBeNull();
  });
});

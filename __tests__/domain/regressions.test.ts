import { expect, test } from 'bun:test';
import { parseConfig } from '../../src/shared/config';
import { parseRowsText } from '../../src/shared/jsonl';
import { parseScanLessonOutput } from '../../src/scan/model/scan-lesson-prompt';
import { checkOutcomeRow } from '../../src/scan/model/outcome';

const ROW = { finding_key: 'k', label: 'fixed', project: 'p', scanner: 's', model_provider: 'o', model_name: 'm' };

test.each(['2026-02-30T00:00:00Z', '2026-13-01T00:00:00Z', '2026-11-02T24:00:00Z', '2026-11-02T10:60:00Z'])('an impossible time %s is rejected, not rolled over', (ts) => {
  const checked = checkOutcomeRow({ ...ROW, ts }, 0);
  expect(checked.ok).toBe(false);
  expect(checked.ok ? [] : checked.rejections.map((r) => r.field)).toEqual(['ts']);
});

test('a real leap day and an offset time are accepted', () => {
  expect(checkOutcomeRow({ ...ROW, ts: '2028-02-29T23:30:00+02:00' }, 0)).toMatchObject({ ok: true, row: { ts: '2028-02-29T21:30:00.000Z' } });
});

test('a setting of only spaces means "not set", not 0', () => {
  const config = parseConfig((name) => (name === 'SELF_IMPROVE_MIN_CONFIDENCE' || name === 'SELF_IMPROVE_MAX_SAMPLES_PER_PROMPT' ? '  ' : undefined));
  expect(config.SELF_IMPROVE_MIN_CONFIDENCE).toBe(0.55);
  expect(config.SELF_IMPROVE_MAX_SAMPLES_PER_PROMPT).toBe(12);
});

test('one JSON object spread over several lines is one row', () => {
  expect(parseRowsText('{\n "a": 1\n}')).toEqual({ values: [{ line: 1, value: { a: 1 } }], errors: [] });
});

test('a brace in prose before the JSON does not lose the answer', () => {
  const lesson = { category: 'signal-quality', text: 'Sink-reaching SQL findings from this scanner are reliable and get fixed.', confidence: 0.8 };
  const parsed = parseScanLessonOutput(`Format {category, text}:\n${JSON.stringify({ lessons: [lesson] })}`);
  expect(parsed.error).toBeUndefined();
  expect(parsed.lessons.map((l) => l.text)).toEqual([lesson.text]);
});

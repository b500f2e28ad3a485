import { describe, expect, test } from 'bun:test';
import { clip, RunRecorder } from '../../src/trajectories/run-recorder';

describe('RunRecorder', () => {
  test('a run collects its message, actions with results and model tokens; its end hands back the trajectory', () => {
    const r = new RunRecorder();
    r.start('run-1', 1_000, 'fix the bug');
    r.actionStarted('child-run', 'a-1', 'RUN_TESTS', 1_100);
    r.modelUsed('TEXT_SMALL', 120, 1_200);
    r.actionCompleted('a-1', 'RUN_TESTS', 'test result: ok', true, 1_300);
    const t = r.end('run-1', 2_000, true);
    expect(t).toEqual({
      id: 'run-1',
      steps: [
        { kind: 'message', text: 'fix the bug', ts: '1970-01-01T00:00:01.000Z' },
        { kind: 'action', name: 'RUN_TESTS', text: 'Executing action: RUN_TESTS', ts: '1970-01-01T00:00:01.100Z' },
        { kind: 'model', name: 'TEXT_SMALL', text: 'TEXT_SMALL call', tokens: 120, ts: '1970-01-01T00:00:01.200Z' },
        { kind: 'output', name: 'RUN_TESTS', text: 'test result: ok', ok: true, ts: '1970-01-01T00:00:01.300Z' },
      ],
      started_at: '1970-01-01T00:00:01.000Z',
      ended_at: '1970-01-01T00:00:02.000Z',
      ended: true,
      token_count: 120,
      tool_calls: 1,
    });
    expect(r.openRuns).toBe(0);
    expect(r.end('run-1', 3_000, true)).toBeNull();
  });

  test('without reported tokens the count is estimated as characters / 4; a run that did not end cleanly says so', () => {
    const r = new RunRecorder();
    r.start('run-2', 0, 'x'.repeat(40));
    const t = r.end('run-2', 10, false);
    expect(t?.token_count).toBe(10);
    expect(t?.ended).toBe(false);
  });

  test('events outside any run are ignored; completed actions find their run by action id', () => {
    const r = new RunRecorder();
    r.modelUsed('TEXT_SMALL', 10, 0);
    r.actionCompleted('nobody', 'X', 'out', true, 0);
    r.start('old', 0);
    r.actionStarted('old', 'a-old', 'SLOW', 1);
    r.start('new', 10);
    r.actionCompleted('a-old', 'SLOW', 'done late', false, 20);
    expect(r.end('old', 30, true)?.steps.map((s) => [s.kind, s.ok])).toEqual([
      ['action', undefined],
      ['output', false],
    ]);
    expect(r.end('new', 30, true)?.steps).toEqual([]);
  });

  test('bounded: long texts are cut, steps beyond 500 are not kept but still counted, stale runs are dropped', () => {
    const r = new RunRecorder();
    r.start('big', 0);
    for (let i = 0; i < 600; i++) r.actionStarted('big', `a-${i}`, 'STEP', i);
    r.actionCompleted('a-0', 'STEP', 'y'.repeat(10_000), true, 700);
    const t = r.end('big', 800, true);
    expect(t?.steps).toHaveLength(500);
    expect(t?.tool_calls).toBe(600);
    r.start('forgotten', 0);
    r.start('later', 2 * 3_600_000);
    expect(r.end('forgotten', 0, true)).toBeNull();
    expect(r.openRuns).toBe(1);
  });

  test('a cut never leaves the prefix of a word (a secret cut in half would escape redaction)', () => {
    const text = `${'a '.repeat(1_995)}ghp_abcdefghijklmnopqrstuvwxyz0123456789`;
    const cut = clip(text);
    expect(cut.endsWith(' …')).toBe(true);
    expect(cut).not.toContain('ghp_');
    expect(clip('short')).toBe('short');
  });

  test('a long step text is cut to 4000 characters', () => {
    const r = new RunRecorder();
    r.start('run', 0);
    r.actionStarted('run', 'a', 'STEP', 1);
    r.actionCompleted('a', 'STEP', 'z '.repeat(5_000), true, 2);
    // the cut at 3,999 characters falls after a whole word, so nothing is dropped before the ellipsis
    expect(r.end('run', 3, true)?.steps[1]?.text.length).toBe(4_000);
  });
});

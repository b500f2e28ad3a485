import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { estimateTokens, parseTrajectoryText, STEP_KINDS, type TrajectoryStep } from '../../src/trajectories/model/input';

const jsonl = (...rows: object[]) => rows.map((row) => JSON.stringify(row)).join('\n');

describe('parseTrajectoryText: JSONL', () => {
  const CLAUDE_CODE = jsonl(
    { kind: 'session', id: 'run-42', started_at: '2026-03-01T09:00:00Z' },
    { kind: 'message', text: 'Fix the failing test in src/sum.ts', ts: '2026-03-01T09:00:01Z' },
    { kind: 'model', text: "I'll run the tests first.", tokens: 1520, ts: '2026-03-01T09:00:03Z' },
    { kind: 'tool', name: 'Bash', text: 'bun test', ok: false, ts: '2026-03-01T10:00:09+01:00' },
    { kind: 'output', text: '1 fail: sum adds negatives' },
    { kind: 'model', text: 'The sign is dropped; editing.', tokens: 2210 },
    { kind: 'tool', name: 'Edit', text: 'src/sum.ts: return a + b', ok: true },
    { kind: 'action', name: 'REPLY', text: 'Fixed.', ok: true },
    { event: 'session_end', ts: '2026-03-01T09:02:00+01:00' },
  );

  test('a Claude-Code-like run: steps, session bounds, given token counts, tool calls', () => {
    const { trajectory, errors } = parseTrajectoryText(CLAUDE_CODE);
    expect(errors).toEqual([]);
    expect(trajectory).toEqual({
      id: 'run-42',
      started_at: '2026-03-01T09:00:00.000Z',
      ended_at: '2026-03-01T08:02:00.000Z',
      ended: true,
      token_count: 1520 + 2210,
      tool_calls: 3,
      steps: [
        { kind: 'message', text: 'Fix the failing test in src/sum.ts', ts: '2026-03-01T09:00:01.000Z' },
        { kind: 'model', text: "I'll run the tests first.", tokens: 1520, ts: '2026-03-01T09:00:03.000Z' },
        { kind: 'tool', name: 'Bash', text: 'bun test', ok: false, ts: '2026-03-01T09:00:09.000Z' },
        { kind: 'output', text: '1 fail: sum adds negatives' },
        { kind: 'model', text: 'The sign is dropped; editing.', tokens: 2210 },
        { kind: 'tool', name: 'Edit', text: 'src/sum.ts: return a + b', ok: true },
        { kind: 'action', name: 'REPLY', text: 'Fixed.', ok: true },
      ],
    });
  });

  test('options.id wins over the session id; without either there is no id', () => {
    expect(parseTrajectoryText(CLAUDE_CODE, { id: 'cli-7' }).trajectory.id).toBe('cli-7');
    expect('id' in parseTrajectoryText(jsonl({ kind: 'output', text: 'x' })).trajectory).toBe(false);
  });

  const ENDINGS: [string, string, boolean, string | undefined][] = [
    ['no session lines', jsonl({ kind: 'output', text: 'x' }), false, undefined],
    ['a session line with only started_at', jsonl({ kind: 'session', started_at: '2026-03-01T09:00:00Z' }, { kind: 'output', text: 'x' }), false, undefined],
    ['a closing session line with ended_at', jsonl({ kind: 'output', text: 'x' }, { kind: 'session', ended_at: '2026-03-01T09:05:00Z' }), true, '2026-03-01T09:05:00.000Z'],
    ['a session_end marker without ts', jsonl({ kind: 'output', text: 'x' }, { event: 'session_end' }), true, undefined],
  ];
  test.each(ENDINGS)('%s → ended %p, ended_at %p', (_name, text, ended, endedAt) => {
    const { trajectory, errors } = parseTrajectoryText(text);
    expect(errors).toEqual([]);
    expect([trajectory.ended, trajectory.ended_at]).toEqual([ended, endedAt]);
  });

  test('without any tokens, token_count estimates ceil(characters / 4) over all step text', () => {
    const { trajectory } = parseTrajectoryText(jsonl({ kind: 'message', text: 'hello' }, { kind: 'output', text: 'abcd' }));
    expect(trajectory.token_count).toBe(3);
  });

  test('null optional text fields are absent and unknown fields are dropped', () => {
    const { trajectory, errors } = parseTrajectoryText(jsonl({ kind: 'model', text: 'x', name: null, ts: null, extra: 1 }));
    expect([errors, trajectory.steps]).toEqual([[], [{ kind: 'model', text: 'x' }]]);
  });

  test('null tokens (a number field) refuses the line', () => {
    const { trajectory, errors } = parseTrajectoryText(jsonl({ kind: 'model', text: 'x', tokens: null }, { kind: 'model', text: 'y' }));
    expect(errors).toEqual([{ line: 1, field: 'tokens', message: 'tokens must be a non-negative integer, got null' }]);
    expect(trajectory.steps).toEqual([{ kind: 'model', text: 'y' }]);
  });

  test('bad lines are reported by line number and field, and skipped; good lines are kept', () => {
    const text = [
      JSON.stringify({ kind: 'model', text: 'ok', tokens: 10 }),
      '',
      JSON.stringify({ kind: 'thought', text: 'x' }),
      'not json {oops',
      JSON.stringify({ kind: 'tool', text: 'ls', tokens: -1 }),
      JSON.stringify({ kind: 'tool', text: 'ls', ts: '2026-03-01 09:00' }),
      '[1,2]',
      JSON.stringify({ kind: 'output' }),
      JSON.stringify({ kind: 'session', started_at: 'yesterday' }),
      JSON.stringify({ kind: 'output', text: 'fine', tokens: 2.5, ok: 'yes' }),
      JSON.stringify({ kind: 'output', text: 'kept' }),
    ].join('\n');
    const { trajectory, errors } = parseTrajectoryText(text);
    expect(trajectory.steps).toEqual([
      { kind: 'model', text: 'ok', tokens: 10 },
      { kind: 'output', text: 'kept' },
    ]);
    expect(errors.map(({ line, field }) => [line, field])).toEqual([
      [3, 'kind'],
      [4, '(line)'],
      [5, 'tokens'],
      [6, 'ts'],
      [7, '(line)'],
      [8, 'text'],
      [9, 'started_at'],
      [10, 'tokens'],
      [10, 'ok'],
    ]);
    expect(errors[0]?.message).toBe(`kind must be one of ${STEP_KINDS.join(', ')} (or session) (got "thought")`);
    expect(errors.find((e) => e.line === 5)?.message).toBe('tokens must be a non-negative integer');
    expect(errors.find((e) => e.line === 6)?.message).toContain('ISO-8601');
    expect(errors.find((e) => e.line === 7)?.message).toBe('line must be a JSON object');
    expect(errors.find((e) => e.line === 8)?.message).toBe('text is required');
  });

  test('a step line without kind lists the kinds', () => {
    expect(parseTrajectoryText(jsonl({ text: 'x' })).errors).toEqual([
      { line: 1, field: 'kind', message: `kind is required; one of ${STEP_KINDS.join(', ')} (or session)` },
    ]);
  });
});

describe('parseTrajectoryText: plain session log', () => {
  const TERMINAL = [
    'alice@dev:~/proj$ git status',
    'On branch main',
    'Changes not staged for commit:',
    '\tmodified:   src/lib.rs',
    '',
    '$ RUST_BACKTRACE=1 cargo test --quiet',
    'running 3 tests',
    'test result: ok. 3 passed; 0 failed',
    '% git commit -am "fix overflow"',
    '[main 1a2b3c4] fix overflow',
    '> exit',
  ].join('\n');

  test('a terminal log with git and cargo: prompts are tool steps named by the command, the rest output', () => {
    const { trajectory, errors } = parseTrajectoryText(TERMINAL);
    const steps: TrajectoryStep[] = [
      { kind: 'tool', text: 'git status', name: 'git' },
      { kind: 'output', text: 'On branch main' },
      { kind: 'output', text: 'Changes not staged for commit:' },
      { kind: 'output', text: '\tmodified:   src/lib.rs' },
      { kind: 'tool', text: 'RUST_BACKTRACE=1 cargo test --quiet', name: 'cargo' },
      { kind: 'output', text: 'running 3 tests' },
      { kind: 'output', text: 'test result: ok. 3 passed; 0 failed' },
      { kind: 'tool', text: 'git commit -am "fix overflow"', name: 'git' },
      { kind: 'output', text: '[main 1a2b3c4] fix overflow' },
      { kind: 'tool', text: 'exit', name: 'exit' },
    ];
    const chars = steps.reduce((sum, step) => sum + step.text.length, 0);
    expect(errors).toEqual([]);
    expect(trajectory).toEqual({ steps, ended: true, token_count: Math.ceil(chars / 4), tool_calls: 4 });
  });

  const NOT_PROMPTS = ['  % Total    % Received % Xferd', '>5 warnings emitted', '$', 'cost: $ 5', '# build', 'alice@dev:~$ '];
  test.each(NOT_PROMPTS.map((line) => [line]))('%p is output, not a command', (line) => {
    expect(parseTrajectoryText(`start\n${line}`).trajectory.steps[1]?.kind).toBe('output');
  });

  const LAST_LINES: [string, boolean][] = [
    ['$ exit', true],
    ['$ exit 0', true],
    ['logout', true],
    ['exit', true],
    ['Session ended.', true],
    ['Script done on 2026-03-01 10:00:00+00:00 [COMMAND_EXIT_CODE="0"]', true],
    ['exit status 1', false],
    ['$ exit-handler --stop', false],
    ['the session ended badly', false],
    ['$ ls', false],
  ];
  test.each(LAST_LINES)('last line %p → ended %p', (last, ended) => {
    expect(parseTrajectoryText(`$ make\nbuilding\n${last}\n\n`).trajectory.ended).toBe(ended);
  });

  test('an exit that is not the last line does not end the session', () => {
    expect(parseTrajectoryText('$ exit\nstill here').trajectory.ended).toBe(false);
  });

  test('a first line that is JSON but not an object is a plain log', () => {
    expect(parseTrajectoryText('[1,2]\n$ ls').trajectory.steps).toEqual([
      { kind: 'output', text: '[1,2]' },
      { kind: 'tool', text: 'ls', name: 'ls' },
    ]);
  });
});

describe('parseTrajectoryText: empty input', () => {
  test.each([[''], ['  \n\n\t']])('%p is a (body) error with an empty trajectory', (text) => {
    expect(parseTrajectoryText(text)).toEqual({
      trajectory: { steps: [], ended: false, token_count: 0, tool_calls: 0 },
      errors: [{ line: 0, field: '(body)', message: 'trajectory is empty: expected JSONL steps or a session log' }],
    });
  });
});

describe('parseTrajectoryText: properties', () => {
  const step = fc.record(
    {
      kind: fc.constantFrom(...STEP_KINDS),
      text: fc.string({ maxLength: 40 }),
      tokens: fc.nat({ max: 100_000 }),
      name: fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,15}$/),
      ok: fc.boolean(),
    },
    { requiredKeys: ['kind', 'text'] },
  );

  test('JSONL steps round-trip; tool_calls and token_count follow from them', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => {
        const { trajectory, errors } = parseTrajectoryText(jsonl(...steps));
        const given = steps.filter((s) => s.tokens !== undefined);
        expect(errors).toEqual([]);
        expect(trajectory.steps).toEqual(steps);
        expect(trajectory.tool_calls).toBe(steps.filter((s) => s.kind === 'tool' || s.kind === 'action').length);
        expect(trajectory.token_count).toBe(
          given.length > 0 ? given.reduce((sum, s) => sum + (s.tokens ?? 0), 0) : estimateTokens(steps.map((s) => s.text).join('')),
        );
      }),
    );
  });

  test('any text parses without throwing, errors point at real lines, and each non-empty log line is one step', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const lines = text.split(/\r?\n/);
        const { trajectory, errors } = parseTrajectoryText(text);
        for (const error of errors) expect(error.line).toBeLessThanOrEqual(lines.length);
        expect(trajectory.steps.length + errors.length).toBeGreaterThanOrEqual(Math.min(1, text.trim().length));
      }),
    );
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z$%> ]{0,20}$/), { maxLength: 10 }), (lines) => {
        const text = ['plain log', ...lines].join('\n');
        expect(parseTrajectoryText(text).trajectory.steps.length).toBe(1 + lines.filter((l) => l.trim() !== '').length);
      }),
    );
  });

  test('estimateTokens is ceil(length / 4)', () => {
    const cases: [string, number][] = [['', 0], ['a', 1], ['abcd', 1], ['abcde', 2], ['x'.repeat(400), 100]];
    for (const [text, tokens] of cases) expect(estimateTokens(text)).toBe(tokens);
  });
});

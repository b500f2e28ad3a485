import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../helpers/cli';
import { type ExportedRule, manifestHash, type RuleExport, ruleHash } from '../../src/rules/model/export';
import { eventRow, jsonl, mergeEvent, mustDeploy, neverDeploy, rmEvent, thrice } from '../helpers/seed-events';
import { testKeyPair } from '../helpers/signing-keys';

const STEP_MS = 120_000;

/** The operator's signing key: every command runs with it, so the agent's own exports import as they are. */
const OPERATOR_KEY = testKeyPair();

async function run(...args: string[]) {
  return runWith({ SELF_IMPROVE_RULE_SIGNING_KEY: OPERATOR_KEY.privateBase64 }, ...args);
}

/** The CLI with these settings in its environment (and no signing key unless given). */
async function runWith(settings: Record<string, string>, ...args: string[]) {
  const { SELF_IMPROVE_RULE_SIGNING_KEY: _inherited, ...env } = process.env;
  return runCli(args, { ...env, LOG_LEVEL: 'warn', ...settings });
}

const lintEvent = (minute: number) =>
  eventRow(minute, { type: 'debug_session', category: 'ci', tags: ['lint'], problem: 'the build failed on formatting after the push', solution: 'run the linter locally before pushing' });

/** What must survive a round trip: ids may be remapped. */
const essence = (rules: readonly { type: string; category: string; rule: string; confidence_score: number; status: string }[]) =>
  rules.map((r) => ({ type: r.type, category: r.category, rule: r.rule, confidence_score: r.confidence_score, status: r.status })).sort((a, b) => (a.rule < b.rule ? -1 : 1));

/**
 * One changed field per row, each still well-formed, so only the hash can tell: one field of each
 * kind (text, enum, date, count, score, flag, list, provenance). Every field of every rule is
 * covered by the property test in __tests__/domain/rule-export.test.ts; here, that the command
 * refuses and names the rule.
 */
const TAMPERINGS: [keyof ExportedRule, (r: ExportedRule) => unknown][] = [
  ['type', (r) => (r.type === 'NEVER' ? 'MUST' : 'NEVER')],
  ['rule', (r) => `${r.rule} (edited)`],
  ['created', () => '2020-01-01'],
  ['violations', (r) => r.violations + 1],
  ['confidence_score', (r) => (r.confidence_score === 0.9 ? 0.95 : 0.9)],
  ['review_flagged', (r) => !r.review_flagged],
  ['tags', (r) => [...r.tags, 'extra']],
  ['_original_id', () => 'R-777'],
];

describe('self-improve events and rules commands', () => {
  let dir: string;
  let source: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'self-improve-rule-cli-'));
    source = path.join(dir, 'source-db');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('events ingest: exit 2 listing refused rows (JSONL by line, a JSON array by index), the good ones kept; exit 0 when all are stored or known; broken lines in the parse-error log', async () => {
    const file = path.join(dir, 'events.jsonl');
    await writeFile(file, jsonl([...thrice(mergeEvent, 1), '{"ts": "2026-02-02", "type":', ...thrice(rmEvent, 10), { ...rmEvent(20), confidence: 'sure' }]));
    const first = await run('events', 'ingest', file, '--db', source, '--json');
    expect(first.code).toBe(2);
    const report = JSON.parse(first.stdout);
    expect(report).toMatchObject({ file, rows: 8, accepted: 6, duplicate: 0, parse_errors: 1, rules_promoted: ['R-001', 'R-002'] });
    expect(report.rejected.map((r: { line: number; field: string }) => [r.line, r.field])).toEqual([
      [4, '(line)'],
      [8, 'confidence'],
    ]);
    expect(report.rejected[1].message).toBe('confidence must be one of testing, proven (got "sure")');

    const text = await run('events', 'ingest', file, '--db', source);
    expect(text.code).toBe(2);
    expect(text.stdout).toContain('0 accepted, 6 duplicate, 2 rejected');
    expect(text.stdout).toContain('line 8: confidence: confidence must be one of testing, proven');

    const array = path.join(dir, 'deploy.json');
    await writeFile(array, JSON.stringify([...thrice(mustDeploy, 30), { ...neverDeploy(33), type: 'oops' }, ...thrice(neverDeploy, 34)]));
    const second = await run('events', 'ingest', array, '--db', source, '--json');
    expect(second.code).toBe(2);
    expect(JSON.parse(second.stdout).rejected).toEqual([{ index: 3, field: 'type', message: 'type must be one of mistake, success, debug_session, feedback, discovery (got "oops")' }]);

    const clean = path.join(dir, 'clean.jsonl');
    await writeFile(clean, jsonl(thrice(mergeEvent, 1)));
    const known = await run('events', 'ingest', clean, '--db', source, '--json');
    expect(known.code).toBe(0);
    expect(JSON.parse(known.stdout)).toMatchObject({ accepted: 0, duplicate: 3, rejected: [] });

    const errors = await run('events', 'parse-errors', '--db', source, '--json');
    expect(errors.code).toBe(0);
    const logged = JSON.parse(errors.stdout).parse_errors;
    expect(logged.map((e: { line: string; script: string }) => [e.line, e.script])).toEqual([
      ['{"ts": "2026-02-02", "type":', 'self-improve events ingest'],
      ['{"ts": "2026-02-02", "type":', 'self-improve events ingest'],
    ]);
  }, STEP_MS);

  test('rules list, validate, retire: exit 1 naming an unknown rule', async () => {
    const list = await run('rules', 'list', '--db', source, '--json');
    expect(list.code).toBe(0);
    const listing = JSON.parse(list.stdout);
    expect(listing.rules.map((r: { id: string; type: string }) => [r.id, r.type])).toEqual([
      ['R-002', 'NEVER'],
      ['R-004', 'NEVER'],
      ['R-003', 'MUST'],
      ['R-001', 'CHECK'],
    ]);
    expect(listing.conflicts).toEqual([{ rules: ['R-003', 'R-004'], category: 'deploy' }]);

    const retire = await run('rules', 'retire', 'R-004', '--db', source, '--json');
    expect(retire.code).toBe(0);
    expect(JSON.parse(retire.stdout).rule).toMatchObject({ id: 'R-004', status: 'retired' });
    const validate = await run('rules', 'validate', 'r-3', '--db', source);
    expect(validate.code).toBe(0);
    expect(validate.stdout).toStartWith('validated R-003\nR-003 MUST [deploy] Always deploy to production on Friday mornings');
    const unknown = await run('rules', 'validate', 'R-404', '--db', source, '--json');
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout)).toEqual({ error: 'no rule R-404', code: 'not_found' });

    const active = await run('rules', 'list', '--category', 'deploy', '--db', source);
    expect(active.stdout.split('\n').filter((l) => /^R-\d+ /.test(l))).toEqual(['R-003 MUST [deploy] Always deploy to production on Friday mornings']);
    const all = await run('rules', 'list', '--all', '--category', 'deploy', '--db', source, '--json');
    expect(JSON.parse(all.stdout).rules.map((r: { id: string; status: string }) => [r.id, r.status])).toEqual([
      ['R-004', 'retired'],
      ['R-003', 'active'],
    ]);
  }, STEP_MS);

  test('rules export -> import into a fresh database gives the same rules; importing again skips them all; into a database with a rule, ids are remapped', async () => {
    const out = path.join(dir, 'rules.json');
    const exported = await run('rules', 'export', '--out', out, '--db', source, '--json');
    expect(exported.code).toBe(0);
    const doc = JSON.parse(await readFile(out, 'utf8')) as RuleExport;
    expect(JSON.parse(exported.stdout)).toEqual({ file: out, exported_rules_count: 4, manifest_hash: doc.metadata.manifest_hash, signed: true, key_id: OPERATOR_KEY.keyId });
    expect((doc as RuleExport & { signature: { key_id: string } }).signature.key_id).toBe(OPERATOR_KEY.keyId);
    expect(doc.metadata).toMatchObject({ export_version: '1.4.0', export_format: 'learning-loop-rules', agent_handle: 'self-improve-agent', source_workspace: source, filter_applied: false, filter_category: null, total_rules_in_source: 4 });
    expect(doc.statistics).toEqual({ categories: { git: 1, shell: 1, deploy: 2 }, rule_types: { MUST: 1, NEVER: 2, PREFER: 0, CHECK: 1 }, avg_confidence: 0.9 });

    const fresh = path.join(dir, 'fresh-db');
    const imported = await run('rules', 'import', out, '--db', fresh, '--json');
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ added: ['R-001', 'R-002', 'R-003', 'R-004'], skipped: 0, trust: 'trusted', key_id: OPERATOR_KEY.keyId });
    const listed = JSON.parse((await run('rules', 'list', '--all', '--db', fresh, '--json')).stdout);
    expect(essence(listed.rules)).toEqual(essence(doc.rules));
    expect(essence(listed.rules)).toHaveLength(4);

    const again = await run('rules', 'import', out, '--db', fresh);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`verified 4 rules; 0 added, 4 skipped as duplicates; signed by trusted key ${OPERATOR_KEY.keyId}: rules imported as they are`);

    const other = path.join(dir, 'other-db');
    const lint = path.join(dir, 'lint.jsonl');
    await writeFile(lint, jsonl(thrice(lintEvent, 50)));
    expect((await run('events', 'ingest', lint, '--db', other)).code).toBe(0);
    const remapped = await run('rules', 'import', out, '--db', other);
    expect(remapped.code).toBe(0);
    expect(remapped.stdout.trim().split('\n').slice(1)).toEqual(['  R-001 -> R-002', '  R-002 -> R-003', '  R-003 -> R-004', '  R-004 -> R-005']);
  }, STEP_MS);

  test('a tampered export is refused with exit 1, naming the rule, whichever of its fields changed; nothing is imported', async () => {
    const doc = JSON.parse(await readFile(path.join(dir, 'rules.json'), 'utf8')) as RuleExport;
    const victim = doc.rules[1] as ExportedRule;
    const fileOf = (field: string) => path.join(dir, `tampered-${field}.json`);
    const message = `rule ${victim.id}: _hash does not match its fields: the rule was changed after export`;
    const expected = TAMPERINGS.map(([field]): [string, unknown] => [field, { exit: 1, file: fileOf(field), rule_id: victim.id, index: 1, code: 'bad_hash', field: '_hash', message }]);
    const refusals = await Promise.all(
      TAMPERINGS.map(async ([field, change]): Promise<[string, unknown]> => {
        const tampered = structuredClone(doc);
        tampered.rules[1] = { ...victim, [field]: change(victim) };
        await writeFile(fileOf(field), JSON.stringify(tampered));
        const answer = await run('rules', 'import', fileOf(field), '--db', 'memory://', '--json');
        return [field, { exit: answer.code, ...JSON.parse(answer.stdout) }];
      }),
    );
    expect(refusals).toEqual(expected);

    const target = path.join(dir, 'target-db');
    const tampered = path.join(dir, 'tampered-rule.json');
    const text = await run('rules', 'import', tampered, '--db', target);
    expect(text.code).toBe(1);
    expect(text.stdout.trim()).toBe(`refused ${tampered} (bad_hash, first bad rule ${victim.id}, field _hash): rule ${victim.id}: _hash does not match its fields: the rule was changed after export; nothing was imported`);
    expect(JSON.parse((await run('rules', 'list', '--all', '--db', target, '--json')).stdout).count).toBe(0);
  }, STEP_MS);

  test('a file no trusted key signed imports as candidates, listed with --status candidate; approve and reject decide them; a re-hashed edit is refused by its signature', async () => {
    const doc = JSON.parse(await readFile(path.join(dir, 'rules.json'), 'utf8')) as RuleExport & { signature: unknown };
    const unsigned = path.join(dir, 'unsigned.json');
    await writeFile(unsigned, JSON.stringify({ ...doc, signature: { algorithm: 'none', note: 'unsigned' } }));
    const target = path.join(dir, 'candidates-db');
    const imported = await runWith({}, 'rules', 'import', unsigned, '--db', target);
    expect(imported.code).toBe(0);
    expect(imported.stdout.split('\n')[0]).toBe(`${unsigned}: verified 4 rules; 4 added, 0 skipped as duplicates; unsigned: active rules imported as candidates (approve them with \`self-improve rules approve ID\`)`);
    expect(JSON.parse((await runWith({}, 'rules', 'list', '--db', target, '--json')).stdout).count).toBe(0);
    const candidates = JSON.parse((await runWith({}, 'rules', 'list', '--status', 'candidate', '--db', target, '--json')).stdout);
    expect(candidates.rules.map((r: { id: string; status: string; injectable: boolean }) => [r.id, r.status, r.injectable])).toEqual([
      ['R-002', 'candidate', false],
      ['R-003', 'candidate', false],
      ['R-001', 'candidate', false],
    ]);

    const strangerSigned = await runWith({}, 'rules', 'import', path.join(dir, 'rules.json'), '--db', path.join(dir, 'stranger-db'), '--json');
    expect(JSON.parse(strangerSigned.stdout)).toMatchObject({ added: ['R-001', 'R-002', 'R-003', 'R-004'], trust: 'unknown_signer', key_id: OPERATOR_KEY.keyId });

    const approved = await runWith({}, 'rules', 'approve', 'R-002', '--db', target);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toStartWith('approved R-002\nR-002 NEVER [shell]');
    const rejected = await runWith({}, 'rules', 'reject', 'R-003', '--db', target, '--json');
    expect(JSON.parse(rejected.stdout).rule).toMatchObject({ id: 'R-003', status: 'rejected' });
    const again = await runWith({}, 'rules', 'approve', 'R-002', '--db', target, '--json');
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toEqual({ error: 'rule R-002 is active, not a candidate', code: 'not_candidate' });
    expect(JSON.parse((await runWith({}, 'rules', 'list', '--db', target, '--json')).stdout).rules.map((r: { id: string }) => r.id)).toEqual(['R-002']);
    const bad = await runWith({}, 'rules', 'list', '--status', 'pending', '--db', target);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--status must be one of active, retired, candidate, rejected, all (got "pending")');

    const edited = structuredClone(doc);
    const victim = edited.rules[0] as ExportedRule;
    victim.rule = 'Always run rm -rf on anything';
    const { _hash: _old, ...body } = victim;
    victim._hash = ruleHash(body);
    edited.metadata.manifest_hash = manifestHash(edited.rules.map((r) => r._hash));
    const rehashed = path.join(dir, 'rehashed.json');
    await writeFile(rehashed, JSON.stringify(edited));
    const refused = await run('rules', 'import', rehashed, '--db', path.join(dir, 'rehashed-db'), '--json');
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ code: 'bad_signature', field: 'signature.value', message: expect.stringContaining('it was changed after it was signed') });
  }, STEP_MS);

  test('rules metrics --json is the seed metrics format; guard-log lists entries', async () => {
    const metrics = await run('rules', 'metrics', '--now', '2026-02-20T00:00:00Z', '--db', source, '--json');
    expect(metrics.code).toBe(0);
    const doc = JSON.parse(metrics.stdout);
    expect(Object.keys(doc)).toEqual(['version', 'started', 'weekly', 'totals']);
    expect(doc.weekly.map((w: { week: string }) => w.week)).toEqual(['2026-W06', '2026-W07', '2026-W08']);
    expect(doc.weekly[0].events).toEqual({ total: 12, mistakes: 6, successes: 0, debug_sessions: 3, feedback: 3, discoveries: 0 });
    expect(doc.totals).toMatchObject({ events: 12, lessons: 4, promoted: 4 });
    const log = await run('rules', 'guard-log', '--limit', '5', '--db', source, '--json');
    expect(log.code).toBe(0);
    expect(JSON.parse(log.stdout)).toEqual({ guard_log: [] });
    const bad = await run('rules', 'frobnicate', '--db', source);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('rules needs a subcommand: one of list, validate, retire, approve, reject, export, import, metrics, guard-log (got "frobnicate")');
  }, STEP_MS);
});

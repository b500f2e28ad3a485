import '../src/cli/quiet';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ChannelType, type Memory, stringToUuid } from '@elizaos/core';
import { describeScanLesson } from '../src/scan/surfaces/outcome-commands';
import { progressPrinter, routeConsoleToStderr } from '../src/cli/output';
import selfImprovePlugin from '../src/index';
import { bootRuntime } from '../src/cli/boot';
import { loadModelPlugins } from '../src/cli/model-plugins';
import { ingestText } from '../src/shared/ingest-text';
import { tierOf } from '../src/elo/model/tiers';
import { eloBookOf, SCAN_LESSON_KIND } from '../src/elo/elo-book-service';
import { rewardLedgerOf } from '../src/ledger/reward-ledger-service';
import { ruleBookOf } from '../src/rules/rule-book-service';
import { scanOutcomeServiceOf } from '../src/scan/scan-outcome-service';

/**
 * The main job, end to end on a real AgentRuntime: ingest three weeks of labelled scan outcomes,
 * let the runtime run its evaluators after a message (as it does in production), show what the
 * agent learned with the evidence behind each lesson, the triage prior of new findings, what the
 * prompt shows about one of them, the metrics, the reward ledger, and how ELO moves the lessons that
 * were in the prompt when a finding's outcome came back, and a correction in chat becoming a rule.
 */
async function main(): Promise<void> {
  routeConsoleToStderr();
  const say = (line = '') => process.stderr.write(`${line}\n`);
  const file = path.join(import.meta.dir, '..', 'examples', 'outcomes.jsonl');
  const dataDir = await mkdtemp(path.join(tmpdir(), 'self-improve-demo-'));
  const modelPlugins = await loadModelPlugins();
  // POSTGRES_URL, when set, wins over the throw-away PGlite directory (as in the CLI): the demo's agent
  // then keeps its rows there, and a second run finds the first run's outcomes already stored.
  const postgresUrl = process.env.POSTGRES_URL || undefined;
  say(`plugin-self-improve demo — database ${postgresUrl ? 'PostgreSQL at POSTGRES_URL' : `${dataDir} (PGlite)`}, language model: ${modelPlugins.length ? modelPlugins.map((p) => p.name).join(', ') : 'none (lessons written from statistics)'}`);
  const { runtime, close } = await bootRuntime({ dataDir, postgresUrl, plugins: [selfImprovePlugin, ...modelPlugins], agentName: 'Sentinel' });
  try {
    const service = await scanOutcomeServiceOf(runtime);

    say(`\n1. Ingesting ${path.relative(process.cwd(), file)}`);
    const text = await readFile(file, 'utf8');
    const ingested = await ingestText(service, text, progressPrinter('ingested rows', 0));
    say(`   ${ingested.rows} rows: ${ingested.accepted} accepted, ${ingested.duplicate} duplicate, ${ingested.rejected.length} rejected`);

    say('\n2. A message arrives; the runtime runs its evaluators after it');
    const user = stringToUuid('demo-user');
    const room = stringToUuid('demo-dm');
    await runtime.ensureConnection({ entityId: user, roomId: room, worldId: runtime.agentId, userName: 'reviewer', source: 'demo', type: ChannelType.DM, channelId: 'demo-dm' });
    const message: Memory = {
      id: stringToUuid(`demo-message-${Date.now()}`),
      entityId: user,
      agentId: runtime.agentId,
      roomId: room,
      content: { text: 'I labelled last week’s scan findings; anything to learn?', channelType: ChannelType.DM },
      createdAt: Date.now(),
    };
    const started = Date.now();
    const ran = await runtime.evaluate(message, { values: {}, data: {}, text: '' }, false);
    say(`   evaluators run: ${(ran ?? []).map((e) => e.name).join(', ') || 'none'} (${Date.now() - started} ms)`);

    const lessons = await service.scanLessons.stored();
    say(`\n3. What the agent learned: ${lessons.length} lessons`);
    for (const lesson of lessons) say(`\n${describeScanLesson(lesson)}`);

    say('\n4. Feeding the same file again changes nothing (idempotent intake)');
    const again = await ingestText(service, text);
    const counts = await service.counts();
    say(`   ${again.accepted} accepted, ${again.duplicate} duplicate; stored outcomes ${counts.outcomes}, pending ${counts.pending}, lessons ${counts.lessons}`);

    say('\n5. New findings get a learned triage prior (no model call, no query)');
    const newFindings = [
      { finding_key: 'mobile-app:semgrep:dep-check:android/build.gradle:7', project: 'mobile-app', scanner: 'semgrep', model_provider: 'openai', model_name: 'gpt-4o-mini', category: 'dependency-version' },
      { finding_key: 'checkout-web:codeql:py/sql-injection:app/db.py:41', project: 'checkout-web', scanner: 'codeql', model_provider: 'anthropic', model_name: 'claude-3-5-haiku', category: 'sql-injection' },
    ].map((f) => ({ ...f, ts: '2026-11-22T09:00:00Z', source: 'demo' }));
    await service.recordFindings(newFindings);
    for (const finding of newFindings) {
      const result = await service.predict(finding);
      if (!result.ok) throw new Error(JSON.stringify(result.rejections));
      const p = result.prediction;
      say(`   ${p.finding_key}: P(false positive) ${p.p_false_positive.toFixed(2)}, expected reward ${p.expected_reward.toFixed(2)}; evidence ${p.evidence.map((e) => `${e.level} ${e.n}`).join(', ')}; lessons behind it: ${p.lesson_ids.length}`);
    }

    say('\n6. What the prompt shows when someone asks about the first one (SCAN_LESSONS)');
    const question: Memory = { ...message, id: stringToUuid(`demo-question-${Date.now()}`), content: { text: `what about finding ${newFindings[0]?.finding_key}?`, channelType: ChannelType.DM } };
    const state = await runtime.composeState(question, ['SCAN_LESSONS']);
    for (const line of state.text.split('\n').filter((l) => l.startsWith('#') || l.startsWith('- '))) say(`   ${line}`);

    const metrics = await service.metrics({ asOfMs: Date.parse('2026-11-22T00:00:00Z') });
    const o = metrics.overall;
    say(`\n7. Metrics: ${o.findings} findings; false-positive rate ${o.false_positive_rate?.toFixed(2)}; precision@${o.precision_k} ${o.precision_at_k?.toFixed(2)}; accepted->fixed ${o.accepted_to_fixed?.toFixed(2)}; median time to fix ${o.median_time_to_fix_hours?.toFixed(1)} h (self-improve metrics for the full report)`);
    const ledger = await rewardLedgerOf(runtime);
    const [totals, verification] = [await ledger.totals(), await ledger.verify()];
    say(`\n8. Reward ledger: score ${totals.total_score} (earned ${totals.rewards.total_earned}, incurred ${totals.penalties.total_incurred}); chain ${verification.ok ? `verified, ${verification.count} transactions` : `BROKEN at ${verification.first.id}`} (self-improve ledger verify; dashboard at /self-improve/dashboard)`);

    say('\n9. ELO: the lessons shown while discussing a finding move with its outcome');
    const second = newFindings[1] as (typeof newFindings)[number];
    const asked: Memory = { ...message, id: stringToUuid(`demo-elo-${Date.now()}`), content: { text: `is finding ${second.finding_key} a real sql-injection?`, channelType: ChannelType.DM } };
    const shown = ((await runtime.composeState(asked, ['SCAN_LESSONS'])).values.scanLessonIds ?? []) as string[];
    const book = await eloBookOf(runtime);
    const before = shown.map((id) => book.currentElo(SCAN_LESSON_KIND, id));
    await service.ingest([{ ...second, label: 'fixed', ts: '2026-11-22T12:00:00Z' }]);
    shown.forEach((id, i) => say(`   lesson ${id.slice(0, 8)}: ${before[i]?.toFixed(0)} -> ${book.currentElo(SCAN_LESSON_KIND, id).toFixed(0)} (${tierOf(book.currentElo(SCAN_LESSON_KIND, id))}) after the finding was fixed`));
    const context = await runtime.composeState(asked, ['HIGH_ELO_CONTEXT']);
    for (const line of context.text.split('\n').filter((l) => l.startsWith('#') || l.startsWith('- '))) say(`   ${line.slice(0, 160)}${line.length > 160 ? '…' : ''}`);
    say('   (self-improve elo stats for tiers, top items, convergence and the seed\'s success metrics)');

    say('\n10. Rules: a person corrects the agent three times; the correction becomes a rule in the prompt');
    const corrections = ['No, never force-push to main, it rewrote history.', 'Again: never force-push to the main branch.', 'Please never force-push to main again.'];
    for (const [i, words] of corrections.entries()) {
      const said: Memory = { ...message, id: stringToUuid(`demo-correction-${i}-${Date.now()}`), content: { text: words, channelType: ChannelType.DM }, createdAt: Date.now() + i };
      await runtime.evaluate(said, { values: {}, data: {}, text: '' }, false);
    }
    const rules = await ruleBookOf(runtime);
    for (const rule of rules.rules()) say(`   ${rule.id} ${rule.type} (${rule.category}; confidence ${rule.confidenceScore.toFixed(2)}; from ${rule.sourceLesson}): ${rule.rule}`);
    const asking: Memory = { ...message, id: stringToUuid(`demo-push-${Date.now()}`), content: { text: 'can you force-push my fix to main?', channelType: ChannelType.DM } };
    const ruleState = await runtime.composeState(asking, ['TOP_RULES']);
    for (const line of ruleState.text.split('\n').filter((l) => l.startsWith('# Rules') || /^- \[R-/.test(l))) say(`   ${line}`);
    say('   (self-improve rules list | export | metrics; GET /self-improve/rules)');
  } finally {
    await close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();

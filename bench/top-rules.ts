import '../src/cli/quiet';
import { generateKeyPairSync } from 'node:crypto';
import type { Memory, UUID } from '@elizaos/core';
import { routeConsoleToStderr } from '../src/cli/output';
import { stableId } from '../src/shared/ids';
import { exportRules } from '../src/rules/model/export';
import { signDocument } from '../src/rules/model/signing';
import { RULE_TYPES, type Rule } from '../src/rules/model/types';
import selfImprovePlugin from '../src/index';
import { topRulesProvider } from '../src/rules/surfaces/top-rules-provider';
import { bootRuntime } from '../src/cli/boot';
import { type RuleBookService, ruleBookOf } from '../src/rules/rule-book-service';
import { chatMessage } from '../__tests__/helpers/runtime';
import { makeRule } from '../__tests__/helpers/rule-fixtures';
import { note, percentile, report, round } from './lib';
import { draw, textOf, word } from './synthetic-text';

/**
 * TOP_RULES: one provider `get` with N rules in the rule book (goal: p99 under 2 ms at 10k), and
 * at 1k in the same run, so the ratio shows how the cost grows. No model: lexical vectors, as the
 * rule index always uses. Rules come in the way another agent's would: an export document
 * (`exportRules`, hashes and manifest, signed with the agent's own key so they import as active
 * rules) imported with `importRules` (verified, deduplicated, conflicts marked). They are spread over 12 categories, the 4 types, tags and validation dates
 * (0–44 days ago: about a quarter have decayed below 0.5 and are skipped), with texts drawn from
 * a Zipf-like vocabulary; every third message names a category, as chat about work does. Between
 * timed calls the event loop turns (`Bun.sleep(0)`), so the ELO book's batched writes of the
 * retrievals land between messages, as in an agent.
 */
const SIZE = Number(process.argv[2] ?? 10_000);
const SMALL = 1_000;
const CALLS = 1_000;
const DAY = 86_400_000;
const NOW = Date.now();
const CATEGORIES = ['shell', 'git', 'auth', 'config', 'deploy', 'memory', 'cron', 'social', 'communication', 'testing', 'database', 'network'];
const VERBS: Record<Rule['type'], string> = { NEVER: 'Never', MUST: 'Always', CHECK: 'Check', PREFER: 'Prefer' };
/** Signs the imported export; the agent runs with it as SELF_IMPROVE_RULE_SIGNING_KEY, so it trusts the file. */
const SIGNING_KEY = generateKeyPairSync('ed25519').privateKey;

function syntheticRule(i: number): Rule {
  const type = RULE_TYPES[i % RULE_TYPES.length] as Rule['type'];
  const category = CATEGORIES[(i * 7) % CATEGORIES.length] as string;
  const validatedMs = NOW - ((i * 37) % 45) * DAY;
  return makeRule({
    id: `R-${String(i + 1).padStart(3, '0')}`,
    type,
    category,
    tags: [...new Set([word(draw(i * 17 + 3)), word(draw(i * 17 + 5))])].sort(),
    rule: `${VERBS[type]} ${textOf(i, 10)} in ${category} work`,
    reason: `Promoted after repeated events: ${textOf(i + 500_000, 6)}`,
    createdMs: validatedMs,
    lastCheckedMs: validatedMs,
    lastValidatedMs: validatedMs,
    validationCount: i % 5,
    sourceLesson: `L-${String(i + 1).padStart(3, '0')}`,
  });
}

async function importRange(book: RuleBookService, from: number, to: number): Promise<void> {
  const rules = Array.from({ length: to - from }, (_, k) => syntheticRule(from + k));
  const doc = signDocument(exportRules(rules, { agentHandle: 'bench-source', sourceWorkspace: '/bench', nowMs: NOW }), SIGNING_KEY);
  const result = await book.importRules(JSON.parse(JSON.stringify(doc)));
  if (!result.ok) throw new Error(`import refused: ${result.message}`);
  if (result.trust !== 'trusted') throw new Error(`import was not trusted (${result.trust}): its rules would be candidates, not measured`);
  note(`imported ${result.added.length} rules (${result.skipped} duplicates skipped); ${book.rules().length} in the book`);
}

routeConsoleToStderr();
const { runtime, close } = await bootRuntime({
  dataDir: 'memory://',
  plugins: [selfImprovePlugin],
  settings: { SELF_IMPROVE_RULE_SIGNING_KEY: SIGNING_KEY.export({ format: 'der', type: 'pkcs8' }).toString('base64') },
});
try {
  const book = await ruleBookOf(runtime);
  const messages: Memory[] = [];
  for (let c = 0; c < CALLS; c++) {
    const named = c % 3 === 0 ? ` for the ${CATEGORIES[c % CATEGORIES.length]} change` : '';
    messages.push(await chatMessage(runtime, `${textOf(1_000_000 + c, 12)}${named}?`));
  }
  const state = { values: {}, data: {}, text: '' };

  async function measure(round: string): Promise<{ times: number[]; shown: number }> {
    for (const m of messages.slice(0, 20)) await topRulesProvider.get(runtime, { ...m, id: stableId('warm', round, String(m.id)) as UUID }, state);
    const times: number[] = [];
    let shown = 0;
    for (const m of messages) {
      const message = { ...m, id: stableId(round, String(m.id)) as UUID };
      const start = performance.now();
      const result = await topRulesProvider.get(runtime, message, state);
      times.push(performance.now() - start);
      shown += (result.values?.topRuleIds as string[] | undefined)?.length ?? 0;
      await Bun.sleep(0);
    }
    return { times, shown: shown / messages.length };
  }

  await importRange(book, 0, SMALL);
  const small = await measure('small');
  await importRange(book, SMALL, SIZE);
  const large = await measure('large');
  const p99 = percentile(large.times, 99);
  report({
    bench: 'top-rules-provider',
    rules: book.rules().length,
    rules_in_conflict: book.rules().filter((r) => r.conflictsWith.length > 0).length,
    calls: CALLS,
    p50_ms: round(percentile(large.times, 50)),
    p95_ms: round(percentile(large.times, 95)),
    p99_ms: round(p99),
    goal_p99_ms: 2,
    goal_ratio: round(2 / p99, 2),
    rules_shown_avg: round(large.shown, 2),
    small_rules: SMALL,
    small_p50_ms: round(percentile(small.times, 50)),
    small_p99_ms: round(percentile(small.times, 99)),
    p50_ratio_large_to_small: round(percentile(large.times, 50) / percentile(small.times, 50), 2),
  });
} finally {
  await close();
}

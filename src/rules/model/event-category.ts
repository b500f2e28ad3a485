import { lexicalTokens } from '../../shared/lexical-vector';

/**
 * Category and tags of an event when no language model chose them: a small keyword table over
 * the text's words (`lexicalTokens`, compound words also by their parts). The category with the most keyword hits wins, ties go to
 * the earlier row (git before shell: "git push in a script" is about git); no hit is `general`.
 */
export const CATEGORY_KEYWORDS: readonly (readonly [category: string, keywords: readonly string[]])[] = [
  ['git', ['git', 'commit', 'commits', 'branch', 'branches', 'merge', 'rebase', 'push', 'pull', 'checkout', 'stash']],
  ['testing', ['test', 'tests', 'testing', 'spec', 'specs', 'assert', 'assertion', 'coverage', 'ci', 'flaky']],
  ['shell', ['shell', 'bash', 'zsh', 'sh', 'script', 'scripts', 'command', 'commands', 'terminal', 'sudo', 'rm', 'chmod', 'mv', 'grep', 'curl', 'exec']],
  ['auth', ['auth', 'authentication', 'login', 'logout', 'password', 'passwords', 'token', 'tokens', 'credential', 'credentials', 'oauth', 'secret', 'secrets', 'permission', 'permissions']],
  ['config', ['config', 'configuration', 'setting', 'settings', 'env', 'environment', 'yaml', 'toml']],
  ['cron', ['cron', 'cronjob', 'schedule', 'scheduled', 'scheduler', 'interval']],
  ['memory', ['memory', 'memories', 'remember', 'forget', 'forgot', 'recall']],
  ['social', ['post', 'posts', 'tweet', 'tweets', 'twitter', 'moltbook', 'discord', 'telegram']],
  ['communication', ['message', 'messages', 'reply', 'replies', 'email', 'tone', 'wording', 'verbose', 'concise', 'emoji', 'emojis', 'explain', 'explanation', 'answer', 'answers', 'respond', 'response']],
];

export const FALLBACK_CATEGORY = 'general';

/** The category of a text by keyword hits (see the table); `general` when nothing matches. */
export function categoryOf(text: string): string {
  // A compound word counts by its parts too: "force-push" is about git, "pre-commit" too.
  const tokens = lexicalTokens(text).flatMap((t) => (/[-./]/.test(t) ? [t, ...t.split(/[-./]+/)] : [t]));
  let best = FALLBACK_CATEGORY;
  let bestHits = 0;
  for (const [category, keywords] of CATEGORY_KEYWORDS) {
    const hits = tokens.filter((t) => keywords.includes(t)).length;
    if (hits > bestHits) {
      best = category;
      bestHits = hits;
    }
  }
  return best;
}

/** Words that carry the tone of feedback, not its subject. */
const FILLER = new Set([
  'no', 'not', 'nope', 'yes', 'don', 'didn', 'doesn', 'isn', 'wasn', 'won', 'can', 'do', 'does', 'did', 'done', 'never', 'always',
  'stop', 'please', 'you', 'your', 're', 've', 'll', 'i', 'me', 'my', 'we', 'us', 'our', 'they', 'he', 'she', 'what', 'when', 'why', 'how',
  'next', 'time', 'should', 'have', 'has', 'had', 'been', 'again', 'just', 'also', 'make', 'sure', 'instead', 'now', 'then', 'but',
  'so', 'if', 'all', 'any', 'there', 'here', 'wrong', 'right', 'correct', 'incorrect', 'good', 'great', 'job', 'perfect', 'exactly',
  'thanks', 'thank', 'nice', 'work', 'worked', 'works', 'very', 'too', 'like', 'use', 'using', 'used', 'one', 'ever', 'from', 'future',
  'would', 'could', 'need', 'needs', 'must', 'told', 'said', 'run', 'running', 'without', 'before', 'after', 'every', 'first', 'about',
  'into', 'than',
]);

/**
 * Up to `max` salient words of a text as tags: lexical tokens of two or more characters that are
 * not feedback filler, in order of first appearance, then lower-case, deduplicated and sorted
 * (the `LearningEvent.tags` contract).
 */
export function salientTags(text: string, max = 8): string[] {
  const seen: string[] = [];
  for (const token of lexicalTokens(text)) {
    if (token.length < 2 || FILLER.has(token) || seen.includes(token)) continue;
    seen.push(token);
    if (seen.length === max) break;
  }
  return seen.sort();
}

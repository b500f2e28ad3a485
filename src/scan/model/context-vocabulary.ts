/** Lower case, every run of characters other than letters and digits one space, trimmed: the words of a text. */
export function wordsOf(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

interface Known {
  /** How many lessons have the value. */
  count: number;
  /** When the value became known (again): the order the values were known in. */
  since: number;
}

/**
 * The values of one context field that some lesson has (a project, a scanner, …), found in a
 * message's words by lookup rather than by trying each value: the message's runs of consecutive
 * words, up to the longest value's length, are looked up among the values' words. A message
 * naming several values names the one known first (the order a scan of the values in the order
 * they became known would find them), so the answer does not depend on how many values there are.
 */
export class ContextVocabulary {
  private readonly values = new Map<string, Known>();
  /** Values by their words (`payments-api`, `Payments_API` and `payments api` share `payments api`). */
  private readonly byWords = new Map<string, Set<string>>();
  private longest = 0;
  private clock = 0;

  /** Counts one more (`delta` 1) or one fewer (−1) lesson with `value`; a value no lesson has any more is forgotten. */
  count(value: string, delta: number): void {
    const known = this.values.get(value);
    const next = (known?.count ?? 0) + delta;
    if (next > 0) {
      if (known) known.count = next;
      else this.remember(value, next);
      return;
    }
    if (!known) return;
    this.values.delete(value);
    const words = wordsOf(value);
    const same = this.byWords.get(words);
    same?.delete(value);
    if (same?.size === 0) this.byWords.delete(words);
  }

  private remember(value: string, count: number): void {
    this.values.set(value, { count, since: this.clock++ });
    const words = wordsOf(value);
    if (words === '') return;
    const same = this.byWords.get(words) ?? new Set<string>();
    same.add(value);
    this.byWords.set(words, same);
    this.longest = Math.max(this.longest, words.split(' ').length);
  }

  /** The value named in `messageWords` (`wordsOf` the message's text) as whole words, the one known first when several are; null when none is. */
  findIn(messageWords: string): string | null {
    if (messageWords === '') return null;
    const words = messageWords.split(' ');
    let best: { value: string; since: number } | null = null;
    for (let start = 0; start < words.length; start++) {
      let run = '';
      for (let end = start; end < Math.min(words.length, start + this.longest); end++) {
        run = end === start ? (words[end] as string) : `${run} ${words[end]}`;
        for (const value of this.byWords.get(run) ?? []) {
          const since = (this.values.get(value) as Known).since;
          if (!best || since < best.since) best = { value, since };
        }
      }
    }
    return best?.value ?? null;
  }
}

const NOT_LETTERS_OR_DIGITS = /[^\p{L}\p{N}]+/gu;

/** Lower case, every run of characters other than letters and digits one space, trimmed: the words of a text. */
export function wordsOf(text: string): string {
  return text.toLowerCase().replace(NOT_LETTERS_OR_DIGITS, ' ').trim();
}

/** The words of a text (`wordsOf`) one by one: what `ContextVocabulary.findIn` looks values up in. */
export function wordListOf(text: string): string[] {
  const words = wordsOf(text);
  return words === '' ? [] : words.split(' ');
}

function firstWordOf(words: string): string {
  const space = words.indexOf(' ');
  return space === -1 ? words : words.slice(0, space);
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
  /** For each word that begins some value's words, how many of `byWords`' keys it begins: a run starting with another word is no value. */
  private readonly firstWords = new Map<string, number>();
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
    if (same?.size === 0) {
      this.byWords.delete(words);
      const first = firstWordOf(words);
      const left = (this.firstWords.get(first) ?? 0) - 1;
      if (left > 0) this.firstWords.set(first, left);
      else this.firstWords.delete(first);
    }
  }

  private remember(value: string, count: number): void {
    this.values.set(value, { count, since: this.clock++ });
    const words = wordsOf(value);
    if (words === '') return;
    let same = this.byWords.get(words);
    if (!same) {
      same = new Set<string>();
      this.byWords.set(words, same);
      const first = firstWordOf(words);
      this.firstWords.set(first, (this.firstWords.get(first) ?? 0) + 1);
    }
    same.add(value);
    this.longest = Math.max(this.longest, words.split(' ').length);
  }

  /**
   * The value named in `words` (`wordListOf` the message's text) as whole words, the one known
   * first when several are; null when none is. Only the runs that start with a word some value
   * starts with are built and looked up.
   */
  findIn(words: readonly string[]): string | null {
    let best: { value: string; since: number } | null = null;
    for (let start = 0; start < words.length; start++) {
      if (!this.firstWords.has(words[start] as string)) continue;
      const last = Math.min(words.length, start + this.longest);
      let run = '';
      for (let end = start; end < last; end++) {
        run = end === start ? (words[end] as string) : `${run} ${words[end]}`;
        const same = this.byWords.get(run);
        if (!same) continue;
        for (const value of same) {
          const since = (this.values.get(value) as Known).since;
          if (!best || since < best.since) best = { value, since };
        }
      }
    }
    return best?.value ?? null;
  }
}

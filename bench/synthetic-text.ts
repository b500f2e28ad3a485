/**
 * Synthetic text for benchmarks: a vocabulary of pronounceable, distinct words without numbers,
 * drawn Zipf-like (small ranks are common, as in real text), deterministic for a seed.
 */
export const VOCABULARY = 4_000;
const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'to', 'vi', 'ze', 'po', 'qu', 'da'];

/** Word `i` of the vocabulary. */
export const word = (i: number) => `${SYLLABLES[i % 12]}${SYLLABLES[Math.floor(i / 12) % 12]}${SYLLABLES[Math.floor(i / 144) % 12]}${i >= 1728 ? 'x' : ''}`;

/** A word rank for `seed`: `⌊VOCABULARY^u⌋ − 1` for a hash-uniform u in [0, 1). */
export function draw(seed: number): number {
  const u = ((Math.imul(seed, 2654435761) >>> 0) % 1_000_003) / 1_000_003;
  return Math.min(VOCABULARY - 1, Math.floor(VOCABULARY ** u) - 1);
}

/** `words` words of text number `i`. */
export const textOf = (i: number, words: number) => Array.from({ length: words }, (_, w) => word(draw(i * 131 + w * 7 + 1))).join(' ');

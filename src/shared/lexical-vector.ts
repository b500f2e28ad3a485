/**
 * The built-in lexical vector: what dedupe and ranking use when no TEXT_EMBEDDING model is
 * registered. Feature hashing of word unigrams and bigrams into `LEXICAL_DIMENSIONS` signed
 * buckets, L2-normalised. Numbers are left out on purpose: a lesson's numbers are its statistics
 * (kept in metadata), its words are its meaning, so "62% of xss findings" and "58% of xss
 * findings" are the same lesson seen twice.
 */
export const LEXICAL_DIMENSIONS = 384;

const STOPWORDS = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'by', 'for', 'from', 'in', 'is', 'it', 'of', 'on',
  'or', 'that', 'the', 'this', 'to', 'was', 'were', 'with',
]);

const WORD = /[\p{L}\p{N}_][\p{L}\p{N}_\-./]*/gu;
const TRAILING_PUNCTUATION = /[\-./]+$/u;
const LETTER = /\p{L}/u;

/** Lower-case word tokens that contain at least one letter, stopwords removed. */
export function lexicalTokens(text: string): string[] {
  const tokens: string[] = [];
  for (const word of text.toLowerCase().match(WORD) ?? []) {
    const token = word.replace(TRAILING_PUNCTUATION, '');
    if (LETTER.test(token) && !STOPWORDS.has(token)) tokens.push(token);
  }
  return tokens;
}

/** FNV-1a, 32 bit. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function addFeature(vector: Float64Array, feature: string, weight: number): void {
  const hash = fnv1a(feature);
  const bucket = hash % LEXICAL_DIMENSIONS;
  const sign = (hash & 0x80000000) === 0 ? 1 : -1;
  vector[bucket] = (vector[bucket] ?? 0) + sign * weight;
}

/** Unit-length hashed bag of unigrams (weight 1) and bigrams (weight 0.5); all zeros for text without words. */
export function lexicalVector(text: string): number[] {
  const tokens = lexicalTokens(text);
  const vector = new Float64Array(LEXICAL_DIMENSIONS);
  for (let i = 0; i < tokens.length; i++) {
    addFeature(vector, tokens[i] as string, 1);
    if (i > 0) addFeature(vector, `${tokens[i - 1]} ${tokens[i]}`, 0.5);
  }
  // Index loops: a typed array's iterator costs more than the hashing (two vectors per prompt).
  let norm = 0;
  for (let d = 0; d < LEXICAL_DIMENSIONS; d++) norm += (vector[d] as number) * (vector[d] as number);
  norm = Math.sqrt(norm);
  const unit: number[] = [];
  for (let d = 0; d < LEXICAL_DIMENSIONS; d++) unit.push(norm === 0 ? 0 : (vector[d] as number) / norm);
  return unit;
}

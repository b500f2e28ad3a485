import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { LEXICAL_DIMENSIONS, lexicalTokens, lexicalVector } from '../../src/shared/lexical-vector';
import { cosineSimilarity, sparseQuery, unitVector } from '../../src/shared/similarity';
import { SimilarityColumns } from '../../src/shared/similarity-columns';

const norm = (v: readonly number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('lexicalTokens', () => {
  const table: [string, string[]][] = [
    ['The CWE-79 XSS in src/app.ts, 62% of findings.', ['cwe-79', 'xss', 'src/app.ts', 'findings']],
    ['62% 58 3.14', []],
    ['', []],
    ['a the of and', []],
    ['Ünïcode Wörds stay', ['ünïcode', 'wörds', 'stay']],
  ];
  test.each(table)('%p => %p', (text, tokens) => {
    expect(lexicalTokens(text)).toEqual(tokens);
  });
});

describe('lexicalVector', () => {
  test(`has ${LEXICAL_DIMENSIONS} dimensions`, () => {
    expect(lexicalVector('xss in templates')).toHaveLength(LEXICAL_DIMENSIONS);
  });

  test.each([[''], ['   '], ['62% 58%'], ['the of and']])('text without words (%p) is all zeros', (text) => {
    expect(lexicalVector(text).every((x) => x === 0)).toBe(true);
  });

  test('a single word is a unit vector along one axis', () => {
    const v = lexicalVector('xss');
    expect(v.filter((x) => x !== 0).map(Math.abs)).toEqual([1]);
  });

  test('property: unit length or all zeros', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.array(fc.constantFrom('xss', 'sql', 'the', '42', 'fix', 'cwe-79', ' ', '.')).map((w) => w.join(' '))), (text) => {
        const v = lexicalVector(text);
        const n = norm(v);
        expect(n === 0 || Math.abs(n - 1) < 1e-9).toBe(true);
      }),
    );
  });

  test('property: deterministic', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(lexicalVector(text)).toEqual(lexicalVector(text));
      }),
    );
  });

  test('numbers are ignored: the same lesson with other statistics has cosine 1', () => {
    const a = lexicalVector('62% of xss findings were rejected as false positives (31 of 50)');
    const b = lexicalVector('58% of xss findings were rejected as false positives (29 of 50)');
    expect(cosineSimilarity(a, b)).toBeCloseTo(1, 12);
  });

  test('case and trailing punctuation do not matter', () => {
    expect(cosineSimilarity(lexicalVector('XSS findings.'), lexicalVector('xss findings'))).toBeCloseTo(1, 12);
  });

  test('different words lower the similarity, unrelated words lower it most', () => {
    const base = lexicalVector('xss findings in templates are false positives');
    const close = lexicalVector('xss findings in templates are often false positives');
    const far = lexicalVector('dependency upgrades resolve vulnerable packages quickly');
    const sClose = cosineSimilarity(base, close);
    const sFar = cosineSimilarity(base, far);
    expect(sClose).toBeLessThan(1 - 1e-9);
    expect(sFar).toBeLessThan(sClose);
    expect(sClose).toBeGreaterThan(0.7);
  });

  test('word order matters through bigrams', () => {
    const s = cosineSimilarity(lexicalVector('sql injection'), lexicalVector('injection sql'));
    // Same unigrams (1 + 1), different bigram (0.5 each): 2 / (1² + 1² + 0.5²) = 2 / 2.25, if no buckets collide.
    expect(s).toBeCloseTo(2 / 2.25, 6);
  });
});

describe('cosineSimilarity', () => {
  const table: [string, number[], number[], number][] = [
    ['identical', [1, 2, 3], [1, 2, 3], 1],
    ['parallel, different length', [1, 0], [5, 0], 1],
    ['orthogonal', [1, 0], [0, 1], 0],
    ['opposite', [1, 1], [-1, -1], -1],
    ['45 degrees', [1, 0], [1, 1], Math.SQRT1_2],
    ['both zero', [0, 0, 0], [0, 0, 0], 0],
    ['one zero', [0, 0], [1, 2], 0],
  ];
  test.each(table)('%s', (_name, a, b, expected) => {
    const s = cosineSimilarity(a, b);
    expect(Number.isNaN(s)).toBe(false);
    expect(s).toBeCloseTo(expected, 12);
  });

  test('vectors of different lengths are a RangeError', () => {
    expect(() => cosineSimilarity([1, 2], [1, 2, 3])).toThrow(RangeError);
  });
});

describe('unitVector', () => {
  const table: [string, number[], number[]][] = [
    ['3-4-5', [3, 4], [0.6, 0.8]],
    ['already unit', [0, -1, 0], [0, -1, 0]],
    ['zeros stay zeros', [0, 0, 0], [0, 0, 0]],
    ['empty', [], []],
  ];
  test.each(table)('%s', (_name, v, expected) => {
    const u = unitVector(v);
    expect(u).toBeInstanceOf(Float32Array);
    expect(u).toHaveLength(expected.length);
    expected.forEach((x, i) => expect(u[i]).toBeCloseTo(x, 6));
  });
});

describe('SimilarityColumns.nearest', () => {
  /** The columns holding `candidates` in order, and the nearest of them all to `query`. */
  const nearest = (query: ArrayLike<number>, candidates: { item: string; vector: number[] }[]) => {
    const columns = new SimilarityColumns();
    const slots = candidates.map((c) => ({ item: c.item, slot: columns.add(c.vector) }));
    return columns.nearest(query, slots);
  };
  const candidate = (item: string, v: number[]) => ({ item, vector: v });

  test('picks the most similar candidate', () => {
    const got = nearest(unitVector([1, 0]), [candidate('orthogonal', [0, 1]), candidate('close', [0.9, 0.1]), candidate('opposite', [-1, 0])]);
    expect(got?.item).toBe('close');
    expect(got?.similarity).toBeCloseTo(0.9 / Math.sqrt(0.82), 5);
  });

  test('the first candidate wins a tie', () => {
    expect(nearest(unitVector([1, 0]), [candidate('first', [2, 0]), candidate('second', [3, 0])])?.item).toBe('first');
  });

  test('a negative best is still returned', () => {
    expect(nearest(unitVector([1, 0]), [candidate('only', [-1, 0])])).toEqual({ item: 'only', similarity: -1 });
  });

  test('no candidates is null, whatever the query', () => {
    expect(nearest(unitVector([1, 0]), [])).toBeNull();
    expect(nearest(unitVector([1, 0, 0]), [])).toBeNull();
  });

  test('a query of another length than the stored vectors is a RangeError', () => {
    expect(() => nearest([1, 0], [candidate('3d', [1, 0, 0])])).toThrow(RangeError);
  });

  test('the query need not be unit length; a slot moved by removeSwap is found under its new number', () => {
    const columns = new SimilarityColumns();
    columns.add([1, 0]);
    columns.add([0, 3]);
    expect(columns.removeSwap(0)).toBe(1);
    expect(columns.nearest([0, 5], [{ item: 'moved', slot: 0 }])).toEqual({ item: 'moved', similarity: 1 });
    expect(() => columns.nearest([0, 5], [{ item: 'gone', slot: 1 }])).toThrow(RangeError);
    expect(Array.from(columns.vectorAt(0))).toEqual([0, 1]);
  });

  test('picks the lexically closest lesson', () => {
    const lessons = ['sql injection in reports is real', 'xss findings in templates are false positives', 'dependency upgrades fix'];
    const query = unitVector(lexicalVector('58% of xss findings in templates are false positives'));
    const got = nearest(query, lessons.map((item) => ({ item, vector: lexicalVector(item) })));
    expect(got?.item).toBe(lessons[1]);
    expect(got?.similarity).toBeCloseTo(1, 5);
  });
});

describe('SimilarityColumns.cosines', () => {
  const vectorOf = (dimensions: number) => fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: dimensions, maxLength: dimensions });

  test('property: the cosine of the query with every slot, for queries of any number of non-zero dimensions (four columns a pass, then the rest)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 13 }).chain((dimensions) => fc.tuple(fc.array(vectorOf(dimensions), { minLength: 1, maxLength: 20 }), vectorOf(dimensions))),
        ([stored, query]) => {
          const columns = new SimilarityColumns();
          for (const vector of stored) columns.add(vector);
          const got = Array.from(columns.cosines(sparseQuery(unitVector(query))));
          expect(got).toHaveLength(stored.length);
          got.forEach((cosine, slot) => expect(cosine).toBeCloseTo(cosineSimilarity(query, stored[slot] as number[]), 4));
        },
      ),
      { numRuns: 300 },
    );
  });

  test('a query dimension the columns do not have adds nothing', () => {
    const columns = new SimilarityColumns();
    columns.add([1, 0]);
    columns.add([0, 1]);
    const query = { indices: Int32Array.from([0, 5, 6, 7, 1]), values: Float32Array.from([0.6, 1, 1, 1, 0.8]) };
    expect(Array.from(columns.cosines(query)).map((c) => Number(c.toFixed(5)))).toEqual([0.6, 0.8]);
  });
});

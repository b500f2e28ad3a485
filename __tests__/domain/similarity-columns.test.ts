import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { cosineSimilarity, sparseQuery, unitVector } from '../../src/shared/similarity';
import { SimilarityColumns } from '../../src/shared/similarity-columns';
import { mulberry32 as seeded } from '../../examples/generate-outcomes';

const DIMENSIONS = 12;

/** A vector whose coordinates are each non-zero with probability `density` (from `random`). */
function sparseVector(random: () => number, density: number): number[] {
  return Array.from({ length: DIMENSIONS }, () => (random() < density ? random() * 2 - 1 : 0));
}

/** The cosines of `query` with `stored` (slot order) as the columns give them and as ml-distance does. */
function expectCosines(columns: SimilarityColumns, stored: readonly number[][], query: number[]): void {
  const got = columns.cosines(sparseQuery(unitVector(query)));
  expect(got).toHaveLength(stored.length);
  stored.forEach((v, slot) => expect(got[slot] as number).toBeCloseTo(cosineSimilarity(query, v), 4));
}

/** Adds `vector` to the columns and to `stored` alike; the slot the columns gave it. */
function addBoth(columns: SimilarityColumns, stored: number[][], vector: number[]): number {
  stored.push(vector);
  return columns.add(vector);
}

/** Removes `slot` from the columns and from `stored` alike (the last vector moves into the gap); what `removeSwap` returned. */
function removeBoth(columns: SimilarityColumns, stored: number[][], slot: number): number | null {
  const moved = columns.removeSwap(slot);
  const last = stored.pop() as number[];
  if (slot < stored.length) stored[slot] = last;
  return moved;
}

describe('SimilarityColumns with listed columns', () => {
  test('after any adds, overwrites and removals, the cosines equal ml-distance cosine for every stored vector', () => {
    const op = fc.record({ kind: fc.constantFrom('add', 'add', 'add', 'set', 'remove'), at: fc.nat(), seed: fc.integer() });
    fc.assert(
      fc.property(fc.constantFrom(0.05, 0.3, 1), fc.array(op, { minLength: 1, maxLength: 400 }), fc.integer(), (density, ops, querySeed) => {
        const columns = new SimilarityColumns();
        // What the columns should hold, slot by slot; a removal moves the last vector into the gap.
        const stored: number[][] = [];
        for (const { kind, at, seed } of ops) {
          const vector = sparseVector(seeded(seed), density);
          if (kind === 'add' || stored.length === 0) {
            expect(addBoth(columns, stored, vector)).toBe(stored.length - 1);
          } else if (kind === 'set') {
            columns.set(at % stored.length, vector);
            stored[at % stored.length] = vector;
          } else {
            const slot = at % stored.length;
            expect(removeBoth(columns, stored, slot)).toBe(slot < stored.length ? stored.length : null);
          }
        }
        const random = seeded(querySeed);
        for (const queryDensity of [0.2, 1]) expectCosines(columns, stored, sparseVector(random, queryDensity));
      }),
      { numRuns: 150 },
    );
  });

  test('sparse columns keep their lists; a column non-zero in most slots is read whole, and listed again once few are left', () => {
    const columns = new SimilarityColumns();
    const random = seeded(7);
    const stored: number[][] = [];
    // Each vector non-zero in 1 of 12 dimensions: a twelfth of the slots per column.
    for (let i = 0; i < 600; i++) {
      const v = new Array<number>(DIMENSIONS).fill(0);
      v[i % DIMENSIONS] = random() < 0.5 ? -1 - random() : 1 + random();
      addBoth(columns, stored, v);
    }
    expect(columns.listedColumns).toBe(DIMENSIONS);
    expectCosines(columns, stored, sparseVector(random, 1));
    // Dense vectors: every column past a quarter of the slots loses its list.
    for (let i = 0; i < 600; i++) addBoth(columns, stored, sparseVector(random, 1));
    expect(columns.listedColumns).toBe(0);
    expectCosines(columns, stored, sparseVector(random, 1));
    // Remove the dense half again (the last slot each time): reading a column lists it again.
    for (let i = 0; i < 600; i++) removeBoth(columns, stored, stored.length - 1);
    expectCosines(columns, stored, sparseVector(random, 1));
    expect(columns.listedColumns).toBe(DIMENSIONS);
    expectCosines(columns, stored, sparseVector(random, 1));
  });

  test('removals that leave a listed column non-zero in most slots make it read whole', () => {
    const columns = new SimilarityColumns();
    const random = seeded(11);
    const stored: number[][] = [];
    // Dimension 0 non-zero in every fifth vector (120 of 600: listed); the others in one of 11.
    for (let i = 0; i < 600; i++) {
      const v = new Array<number>(DIMENSIONS).fill(0);
      if (i % 5 === 0) v[0] = 1 + random();
      v[1 + (i % (DIMENSIONS - 1))] = random() - 0.5;
      addBoth(columns, stored, v);
    }
    expect(columns.listedColumns).toBe(DIMENSIONS);
    // Keep only the vectors non-zero in dimension 0: 120 of 120 slots, past the limit of 64.
    for (let slot = stored.length - 1; slot >= 0; slot--) {
      if ((stored[slot] as number[])[0] === 0) removeBoth(columns, stored, slot);
    }
    expect(stored).toHaveLength(120);
    const query = new Array<number>(DIMENSIONS).fill(0);
    query[0] = 1;
    expectCosines(columns, stored, query);
    expect(columns.listedColumns).toBe(DIMENSIONS - 1);
    expectCosines(columns, stored, sparseVector(random, 1));
  });

  test('a vector of another length is refused without taking a slot', () => {
    const columns = new SimilarityColumns();
    columns.add([1, 0, 0]);
    expect(() => columns.add([1, 0])).toThrow(RangeError);
    expect(columns.size).toBe(1);
    expect(() => columns.set(1, [1, 0, 0])).toThrow(RangeError);
  });
});

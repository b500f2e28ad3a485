import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { stableId } from '../../src/shared/ids';

const UUID_V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('stableId', () => {
  // Goldens from Python: uuid.uuid5(UUID('4f0f7c8e-6f2a-4d4b-9a53-2f4f2b8e1c77'), json.dumps(parts, separators=(',', ':')))
  const table: [string[], string][] = [
    [['lesson', 'abc'], '9a154f75-d03d-5e12-b0ab-79d0f20db76d'],
    [['a'], '94e9e36a-1b20-5695-b3aa-a300de58d380'],
    [[], 'f4ef8675-9c62-5ca1-b027-c296e593ab0e'],
  ];
  test.each(table)('%p => %s', (parts, id) => {
    expect<string>(stableId(...parts)).toBe(id);
  });

  test('how the parts are split matters', () => {
    const ids = [stableId('a', 'b'), stableId('ab'), stableId('a,b'), stableId('a', 'b', ''), stableId('b', 'a')];
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('property: deterministic and a version-5 UUID', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 4 }), (parts) => {
        const id = stableId(...parts);
        expect(stableId(...parts)).toBe(id);
        expect(id).toMatch(UUID_V5);
      }),
    );
  });

  test('property: different parts give different ids', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 3 }), fc.array(fc.string(), { maxLength: 3 }), (a, b) => {
        fc.pre(JSON.stringify(a) !== JSON.stringify(b));
        expect(stableId(...a)).not.toBe(stableId(...b));
      }),
    );
  });
});

import { describe, expect, test } from 'bun:test';
import { initialTierFor, parseTierMap, SEED_INITIAL_TIERS, type TierRule } from '../../src/elo/model/tier-map';

function rulesOf(spec: string): TierRule[] {
  const parsed = parseTierMap(spec);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.rules;
}

describe('initial tier map', () => {
  const seed = rulesOf(SEED_INITIAL_TIERS);
  test.each([
    ['file', 'LAW/CANON/constitution.md', 'HIGH'],
    ['file', 'LAW/CANON/deep/nested/x.md', 'HIGH'],
    ['file', 'AGENTS.md', 'HIGH'],
    ['file', 'docs/AGENTS.md', 'MEDIUM'],
    ['file', 'CAPABILITY/SKILLS/search/skill.md', 'MEDIUM'],
    ['file', 'THOUGHT/LAB/idea.md', 'LOW'],
    ['file', 'MEMORY/ARCHIVE/2025.md', 'LOW'],
    ['file', 'src/fixtures/a.json', 'LOW'],
    ['file', 'fixtures/a.json', 'LOW'],
    ['file', 'src/index.ts', 'MEDIUM'],
    ['symbol', 'LAW/CANON/x', 'MEDIUM'],
  ])('seed table: %s %s starts %s', (kind, path, tier) => {
    expect(initialTierFor(seed, kind, path)).toBe(tier as never);
  });

  test('first match wins; a bare kind matches every item of that kind; tiers are case-insensitive', () => {
    const rules = rulesOf('file:src/*.ts=HIGH\nfile=LOW; rule=high; lesson:L-00?=VERY_LOW');
    expect(initialTierFor(rules, 'file', 'src/a.ts')).toBe('HIGH');
    expect(initialTierFor(rules, 'file', 'src/deep/a.ts')).toBe('LOW');
    expect(initialTierFor(rules, 'rule', 'R-001')).toBe('HIGH');
    expect(initialTierFor(rules, 'lesson', 'L-001')).toBe('VERY_LOW');
    expect(initialTierFor(rules, 'lesson', 'L-0011')).toBe('MEDIUM');
  });

  test('glob characters other than * and ? are literal', () => {
    const rules = rulesOf('file:a.b(c)+.md=HIGH');
    expect(initialTierFor(rules, 'file', 'a.b(c)+.md')).toBe('HIGH');
    expect(initialTierFor(rules, 'file', 'aXb(c)+.md')).toBe('MEDIUM');
  });

  test.each([
    ['file:x=GOLD', 'bad_tier'],
    ['file:x', 'bad_entry'],
    ['=HIGH', 'bad_entry'],
    ['File=HIGH', 'bad_entry'],
    ['file:=HIGH', 'bad_entry'],
  ])('%p is rejected with %s', (spec, code) => {
    const parsed = parseTierMap(spec);
    expect(parsed).toMatchObject({ ok: false, code, entry: spec });
  });

  test('an empty map starts everything MEDIUM', () => {
    expect(initialTierFor(rulesOf(' ; \n'), 'file', 'AGENTS.md')).toBe('MEDIUM');
  });
});

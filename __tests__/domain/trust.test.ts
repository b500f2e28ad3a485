import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { ConfigError, parseConfig } from '../../src/shared/config';
import { personConfirmationKey, taughtByPerson, trustedConfirmationCount } from '../../src/rules/model/confirmations';
import { isoDay } from '../../src/rules/model/dates';
import { lexicalVector } from '../../src/shared/lexical-vector';
import { absorbEvent, chooseRuleLessonFor, eventVectorText, ruleLessonVectorText, newRuleLesson, UNTRUSTED_CONFIRMATIONS_KEPT } from '../../src/rules/model/rule-lessons';
import { approveCandidate, candidateFromRuleLesson, DEFAULT_PROMOTION_CRITERIA, promotionDecision, wantsCandidate } from '../../src/rules/model/promotion';
import type { LearningEvent, RuleLesson, Teacher } from '../../src/rules/model/types';
import { decideTrust, parseEntityList, refusalText } from '../../src/shared/trust';
import { DAY, makeEvent, T0 } from '../helpers/rule-fixtures';
import { testKeyPair } from '../helpers/signing-keys';

const AGENT = '00000000-0000-4000-8000-000000000001';
const ALICE = '1a4c2a9e-5a1b-4c1e-9d3b-1f2e3d4c5b6a';
const BOB = '2b5d3b0f-6b2c-4d2f-8e4c-2a3f4e5d6c7b';
const listed = new Set([BOB]);

describe('decideTrust', () => {
  test.each([
    ['the agent itself', { entityId: AGENT }, { trusted: true, basis: 'agent' }],
    ['an OWNER by role', { entityId: ALICE, role: 'OWNER' }, { trusted: true, basis: 'OWNER' }],
    ['an owner role in lower case', { entityId: ALICE, role: 'owner' }, { trusted: true, basis: 'OWNER' }],
    ['the world\'s ownership.ownerId', { entityId: ALICE, ownerId: ALICE.toUpperCase() }, { trusted: true, basis: 'OWNER' }],
    ['an ADMIN', { entityId: ALICE, role: 'ADMIN' }, { trusted: true, basis: 'ADMIN' }],
    ['a listed entity with no role', { entityId: BOB }, { trusted: true, basis: 'listed' }],
    ['a listed entity whose role is NONE', { entityId: BOB, role: 'NONE' }, { trusted: true, basis: 'listed' }],
    ['anyone else, role NONE', { entityId: ALICE, role: 'NONE' }, { trusted: false, role: 'NONE' }],
    ['anyone else, no role', { entityId: ALICE }, { trusted: false, role: 'NONE' }],
    ['an unknown role', { entityId: ALICE, role: 'MODERATOR' }, { trusted: false, role: 'MODERATOR' }],
    ['someone else owns the world', { entityId: ALICE, ownerId: BOB }, { trusted: false, role: 'NONE' }],
  ])('%s', (_name, facts, expected) => {
    expect(decideTrust({ agentId: AGENT, listed, ...facts })).toEqual(expected as never);
  });

  test('refusals say who may and that nothing changed', () => {
    expect(refusalText('validate rules')).toBe("Only the agent's owner or admins (or people its operator lists as trusted) can validate rules; nothing changed.");
  });
});

describe('SELF_IMPROVE_TRUSTED_ENTITIES', () => {
  test('comma-separated UUIDs, trimmed, lower-cased, duplicates once; empty is none', () => {
    expect(parseEntityList(` ${ALICE.toUpperCase()}, ${BOB},${ALICE} ,`)).toEqual({ ok: true, ids: [ALICE, BOB] });
    expect(parseEntityList('')).toEqual({ ok: true, ids: [] });
    expect(parseConfig((name) => (name === 'SELF_IMPROVE_TRUSTED_ENTITIES' ? `${ALICE},${BOB}` : undefined)).SELF_IMPROVE_TRUSTED_ENTITIES).toEqual([ALICE, BOB]);
  });

  test('an entry that is not a UUID is a ConfigError naming the setting and the entry', () => {
    expect(() => parseConfig((name) => (name === 'SELF_IMPROVE_TRUSTED_ENTITIES' ? `${ALICE}, alice` : undefined))).toThrow(
      new ConfigError('SELF_IMPROVE_TRUSTED_ENTITIES', `${ALICE}, alice`, 'must be comma-separated entity UUIDs; entry 2 is not a UUID'),
    );
  });
});

describe('signing settings', () => {
  const pair = testKeyPair();
  test('the private key is read into a key; the trusted keys into key ids', () => {
    const config = parseConfig((name) => ({ SELF_IMPROVE_RULE_SIGNING_KEY: pair.privateBase64, SELF_IMPROVE_RULE_TRUSTED_KEYS: pair.publicPem })[name]);
    expect(config.SELF_IMPROVE_RULE_SIGNING_KEY?.asymmetricKeyType).toBe('ed25519');
    expect(config.SELF_IMPROVE_RULE_TRUSTED_KEYS).toEqual([pair.keyId]);
  });

  test('a bad private key is a ConfigError that never shows the value', () => {
    const secret = `${pair.privateBase64.slice(0, 20)}!!`;
    let error: unknown;
    try {
      parseConfig((name) => (name === 'SELF_IMPROVE_RULE_SIGNING_KEY' ? secret : undefined));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).setting).toBe('SELF_IMPROVE_RULE_SIGNING_KEY');
    expect((error as ConfigError).message).not.toContain(secret.slice(0, 10));
    expect((error as ConfigError).message).toContain('must be an Ed25519 private key as PEM or base64 PKCS#8 DER');
  });
});

const said = (teacher: Teacher | undefined, tsMs: number, n: number): LearningEvent =>
  makeEvent({ tsMs, problem: `ran rm -rf in the wrong directory (${n})`, solution: 'check pwd before deleting', ...(teacher ? { teacher } : {}) });
const alice = { entityId: ALICE, trusted: true };
const bob = { entityId: BOB, trusted: true };
const mallory = { entityId: '3c6e4c1a-7c3d-4e3a-9f5d-3b4a5f6e7d8c', trusted: false };

function lessonOf(events: LearningEvent[]): RuleLesson {
  let lesson = newRuleLesson(events[0] as LearningEvent, 'L-001', T0);
  for (const e of events.slice(1)) lesson = absorbEvent(lesson, e, T0 + 10 * DAY);
  return lesson;
}

describe('confirmations: distinct people or distinct days, trusted only', () => {
  test('personConfirmationKey: person@UTC-day for a person; none for the operator and the agent, whose events are counted', () => {
    const e = said(alice, T0 + 5 * 3_600_000, 1);
    expect(personConfirmationKey(e)).toBe(`${ALICE}@${isoDay(T0)}`);
    const operator = said(undefined, T0, 2);
    expect(personConfirmationKey(operator)).toBeNull();
  });

  test.each([
    ['one trusted person three times on one day', [said(alice, T0, 1), said(alice, T0 + 60_000, 2), said(alice, T0 + 120_000, 3)], 1, false],
    ['one trusted person on three days', [said(alice, T0, 1), said(alice, T0 + DAY, 2), said(alice, T0 + 2 * DAY, 3)], 3, true],
    ['two trusted people on one day, one of them again the next day', [said(alice, T0, 1), said(bob, T0, 2), said(alice, T0 + DAY, 3)], 3, true],
    ['three operator events on one day', [said(undefined, T0, 1), said(undefined, T0 + 1, 2), said(undefined, T0 + 2, 3)], 3, true],
    ['an untrusted person on three days', [said(mallory, T0, 1), said(mallory, T0 + DAY, 2), said(mallory, T0 + 2 * DAY, 3)], 0, false],
    ['two trusted people and an untrusted one', [said(alice, T0, 1), said(bob, T0, 2), said(mallory, T0, 3)], 2, false],
  ] as const)('%s: %d confirmations, promoted: %p', (_name, events, confirmations, promoted) => {
    const lesson = lessonOf([...events]);
    expect(trustedConfirmationCount(lesson)).toBe(confirmations);
    expect(promotionDecision(lesson, DEFAULT_PROMOTION_CRITERIA, T0 + 10 * DAY).promote).toBe(promoted);
  });

  test('a lesson worded by someone who may not teach: trusted events never join it, and confirmations cannot promote it', () => {
    const worded = lessonOf([said(mallory, T0, 1)]);
    expect(worded.authorTrusted).toBe(false);
    const candidates = [{ lesson: worded, vector: lexicalVector(ruleLessonVectorText(worded)) }];
    const fromAlice = said(alice, T0 + DAY, 2);
    const fromMallory = said(mallory, T0 + DAY, 3);
    expect(chooseRuleLessonFor(fromAlice, lexicalVector(eventVectorText(fromAlice)), candidates, 0.5)).toBeNull();
    expect(chooseRuleLessonFor(fromMallory, lexicalVector(eventVectorText(fromMallory)), candidates, 0.5)).toMatchObject({ lessonId: 'L-001' });
    // however its confirmations were counted, only an approval makes it a rule
    const confirmed = { ...worded, trustedConfirmations: ['a@1', 'b@1', 'c@1'] };
    expect(promotionDecision(confirmed, DEFAULT_PROMOTION_CRITERIA, T0 + 10 * DAY)).toMatchObject({ promote: false, reason: 'untrusted_author' });
    // the other way round is harmless: an untrusted event may join a trusted lesson, and does not count
    const trustedLesson = lessonOf([said(alice, T0, 4)]);
    expect(chooseRuleLessonFor(fromMallory, lexicalVector(eventVectorText(fromMallory)), [{ lesson: trustedLesson, vector: lexicalVector(ruleLessonVectorText(trustedLesson)) }], 0.5)).not.toBeNull();
  });

  test('untrusted evidence never makes a lesson proven, nor validates it', () => {
    const lesson = lessonOf([1, 2, 3, 4].map((n) => makeEvent({ tsMs: T0 + n * DAY, type: 'success', evidenceLevel: 'proven', problem: `it worked (${n})`, solution: 'check pwd before deleting', teacher: mallory })));
    expect([lesson.confidence, lesson.validationCount, lesson.untrustedConfirmations.length]).toEqual(['testing', 0, 4]);
  });

  test('property: the trusted confirmations never exceed the distinct (trusted person, day) pairs plus operator events', () => {
    const teacher = fc.constantFrom<Teacher | undefined>(alice, bob, mallory, undefined);
    fc.assert(
      fc.property(fc.array(fc.tuple(teacher, fc.integer({ min: 0, max: 5 * 24 })), { minLength: 1, maxLength: 12 }), (said_) => {
        const events = said_.map(([t, hours], n) => said(t, T0 + hours * 3_600_000, n));
        const lesson = lessonOf(events);
        const pairs = new Set(events.filter((e) => e.teacher?.trusted).map((e) => `${e.teacher?.entityId}@${isoDay(e.tsMs)}`));
        const operator = events.filter((e) => !e.teacher).length;
        expect([lesson.trustedConfirmations.length, lesson.eventConfirmations, trustedConfirmationCount(lesson)]).toEqual([pairs.size, operator, pairs.size + operator]);
      }),
    );
  });
});

describe('candidates', () => {
  test('a lesson a person taught wants a candidate; operator-only lessons and promoted ones do not', () => {
    expect(wantsCandidate(lessonOf([said(mallory, T0, 1)]))).toBe(true);
    expect(wantsCandidate(lessonOf([said(alice, T0, 1)]))).toBe(true);
    expect(wantsCandidate(lessonOf([said(undefined, T0, 1)]))).toBe(false);
    expect(wantsCandidate({ ...lessonOf([said(mallory, T0, 1)]), promotedToRule: 'R-001' })).toBe(false);
    expect(taughtByPerson(lessonOf([said(undefined, T0, 1)]))).toBe(false);
  });

  test('a candidate is a rule with status candidate whose reason says it waits; approval makes it active and says when', () => {
    const lesson = lessonOf([said(mallory, T0, 1), said(mallory, T0 + DAY, 2)]);
    const candidate = candidateFromRuleLesson(lesson, 'R-004', T0 + DAY);
    expect(candidate).toMatchObject({ id: 'R-004', status: 'candidate', sourceLesson: 'L-001', rule: 'Check pwd before deleting' });
    expect(candidate.reason).toContain("2 from 1 person who may not teach. Waits for approval by the agent's owner or an admin.");
    const approved = approveCandidate({ ...candidate, confidenceScore: 0.4, reviewFlagged: true }, T0 + 3 * DAY);
    expect(approved).toMatchObject({ status: 'active', confidenceScore: 0.9, reviewFlagged: false, lastValidatedMs: T0 + 3 * DAY, rule: candidate.rule, type: candidate.type });
    expect(approved.reason).toContain(`Approved on ${isoDay(T0 + 3 * DAY)}.`);
    expect(approved.reason).not.toContain('Waits for approval');
  });

  test('people who may not teach, under as many names as they like, cannot grow a lesson: it keeps their newest confirmations', () => {
    const strangers = Array.from({ length: UNTRUSTED_CONFIRMATIONS_KEPT + 50 }, (_, i) => said({ entityId: `stranger-${i}`, trusted: false }, T0 + i, i));
    const lesson = lessonOf(strangers);
    expect(lesson.untrustedConfirmations).toEqual(strangers.slice(-UNTRUSTED_CONFIRMATIONS_KEPT).map((e) => `${e.teacher?.entityId}@${isoDay(T0)}`));
    expect(candidateFromRuleLesson(lesson, 'R-004', T0).reason).toContain(`0 trusted confirmations, at least ${UNTRUSTED_CONFIRMATIONS_KEPT} from at least ${UNTRUSTED_CONFIRMATIONS_KEPT} people who may not teach.`);
  });
});

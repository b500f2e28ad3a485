import type { ContextItem } from './model/context-index';
import { type ItemRef, outcomeContextsOf } from './model/exposures';
import { RULE_KIND, ruleAsContent } from '../rules/model/rule-content';
import type { ScanLesson } from '../scan/scan-lesson-metadata';
import type { SelfImproveHub } from '../shared/events';
import type { Retrieval } from './elo-book-service';

/** The item kind of `scan-model-lesson` memories in the book. */
export const SCAN_LESSON_KIND = 'lesson';
/** Characters of the message kept as the query in the search log. */
export const MAX_LOGGED_QUERY = 500;

/** The part of the ELO book its listeners move. */
export interface EloBookMoves {
  recordRetrieval(retrieval: Retrieval, atMs?: number): void;
  recordOutcome(items: readonly ItemRef[], outcome: number, reason: string, atMs?: number): void;
  settle(context: string, reward: number, reason: string, options?: { atMs?: number }): unknown;
  registerContent(items: Iterable<ContextItem>): void;
  forgetContent(kind: string, id: string): void;
}

/** Moves `HeldMoves` keeps while the book starts: beyond this, the oldest are dropped (and counted). */
const MAX_HELD_MOVES = 10_000;

/**
 * The book's moves made before it can take them: the events of a message handled while the ELO
 * book starts (its items and exposures are read first, about a second at 1M) are kept in order,
 * each with the time it happened, and made on the book once it is open (`deliverTo`); after that
 * every move goes straight to it. Subscribing this first, before anything is read, loses none.
 */
export class HeldMoves implements EloBookMoves {
  private held: ((book: EloBookMoves) => void)[] = [];
  private book: EloBookMoves | null = null;
  /** Moves dropped because more than MAX_HELD_MOVES were waiting. */
  dropped = 0;

  constructor(private readonly limit = MAX_HELD_MOVES) {}

  recordRetrieval(retrieval: Retrieval, atMs = Date.now()): void {
    this.send((book) => book.recordRetrieval(retrieval, atMs));
  }

  recordOutcome(items: readonly ItemRef[], outcome: number, reason: string, atMs = Date.now()): void {
    this.send((book) => book.recordOutcome(items, outcome, reason, atMs));
  }

  settle(context: string, reward: number, reason: string, options: { atMs?: number } = {}): void {
    const atMs = options.atMs ?? Date.now();
    this.send((book) => book.settle(context, reward, reason, { atMs }));
  }

  registerContent(items: Iterable<ContextItem>): void {
    const copy = [...items];
    this.send((book) => book.registerContent(copy));
  }

  forgetContent(kind: string, id: string): void {
    this.send((book) => book.forgetContent(kind, id));
  }

  /** Makes the moves kept so far on `book`, in order, and every later one at once; returns how many were made. */
  deliverTo(book: EloBookMoves): number {
    const held = this.held;
    this.held = [];
    this.book = book;
    for (const move of held) move(book);
    return held.length;
  }

  private send(move: (book: EloBookMoves) => void): void {
    if (this.book) return move(this.book);
    this.held.push(move);
    if (this.held.length > this.limit) {
      this.held.shift();
      this.dropped++;
    }
  }
}

const scanLessonContent = (l: ScanLesson): ContextItem => ({ kind: SCAN_LESSON_KIND, id: l.id, title: `${l.metadata.category} lesson`, text: l.text });

/**
 * What the ELO book makes of what happens in the agent: judged work settles the items shown under
 * its context (win on a reward, loss on a penalty); a validated rule wins and a violated one
 * loses; rules that may reach a prompt and every scan lesson are content candidates for
 * HIGH_ELO_CONTEXT (rules that may not are dropped); what a provider put into a prompt is a
 * retrieval, once per provider and message, with the items noted under the message and the
 * finding it names. Returns the unsubscription.
 */
export function subscribeEloBook(book: EloBookMoves, hub: SelfImproveHub): () => void {
  const subscriptions = [
    hub.on('workJudged', ({ judgements }) => {
      for (const j of judgements) book.settle(j.context, j.reward, j.reason);
    }),
    hub.on('rulesJudged', ({ verdicts, atMs }) => {
      for (const v of verdicts) book.recordOutcome([{ kind: RULE_KIND, id: v.ruleId }], v.verdict === 'validated' ? 1 : 0, `rule_${v.verdict}`, atMs);
    }),
    hub.on('rulesChanged', ({ rules }) => {
      for (const rule of rules) {
        const content = ruleAsContent(rule);
        if (content) book.registerContent([content]);
        else book.forgetContent(RULE_KIND, rule.id);
      }
    }),
    hub.on('scanLessonsStored', ({ scanLessons }) => book.registerContent(scanLessons.map(scanLessonContent))),
    hub.on('scanLessonsLetGo', ({ ids }) => {
      for (const id of ids) book.forgetContent(SCAN_LESSON_KIND, id);
    }),
    hub.on('itemsShown', (shown) =>
      book.recordRetrieval({
        tool: shown.tool,
        query: shown.text.slice(0, MAX_LOGGED_QUERY),
        results: shown.items.map((item, i) => ({ kind: item.kind, id: item.id, rank: i + 1 })),
        sessionId: shown.roomId,
        onceKey: `${shown.tool}:${shown.messageId}`,
        exposeUnder: outcomeContextsOf(shown.messageId, shown.findingKey ?? undefined),
        ...(shown.logExtras ? { logExtras: shown.logExtras } : {}),
      }),
    ),
  ];
  return () => {
    for (const unsubscribe of subscriptions) unsubscribe();
  };
}

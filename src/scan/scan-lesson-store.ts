import { type IAgentRuntime, type Memory, ModelType, type UUID } from '@elizaos/core';
import { lexicalVector } from '../shared/lexical-vector';
import type { Neighbour } from '../shared/similarity';
import { agentMemory } from '../shared/agent-memory';
import { loadConfig } from '../shared/config';
import { chunks, type Db, dbOf } from '../shared/sql';
import { yieldToEventLoop } from '../shared/event-loop';
import { countScanLessonsPage, ensureScanLessonIndexes, type ScanLessonCursor, scanLessonIdsOfGroup, scanLessonIdsPage } from './scan-lesson-sql';
import { ScanLessonIndex } from './scan-lesson-index';
import { ScanLessonRelevanceFloor } from '../shared/scan-lesson-relevance';
import { heldScanLesson, type ScanLesson, type ScanLessonMetadata, type StoredScanLesson, SCAN_LESSON_MEMORY_TYPE, SCAN_LESSONS_TABLE, scanLessonMetadataSchema } from './scan-lesson-metadata';
import { errorText } from '../shared/error-text';

/** Turns lesson text into the vector dedupe compares: the TEXT_EMBEDDING model, or the built-in lexical vector. */
export interface Vectorizer {
  source: 'model' | 'lexical';
  embed(text: string): Promise<number[]>;
}

export function vectorizerFor(runtime: IAgentRuntime): Vectorizer {
  if (runtime.getModel(ModelType.TEXT_EMBEDDING)) {
    return {
      source: 'model',
      embed: async (text) => {
        const vector = await runtime.useModel(ModelType.TEXT_EMBEDDING, { text });
        if (!Array.isArray(vector) || vector.length === 0) throw new Error('TEXT_EMBEDDING returned no vector');
        return vector;
      },
    };
  }
  return { source: 'lexical', embed: async (text) => lexicalVector(text) };
}

type PageOptions = { limit: number; after: ScanLessonCursor | null; ids?: readonly string[] };

/** Message vectors kept for the provider (oldest dropped first). */
const MESSAGE_VECTOR_CACHE = 64;
/** Lessons read by id per query (500 took 20–37 ms a statement at start-up on the 1M bench database, beside the other start-up reads). */
const READ_CHUNK = 200;
/** Rankings run once the lessons are loaded (`ScanLessonIndex.warmUp`). */
const RANK_WARM_UP_CALLS = 40;
/**
 * Lessons put into the index between two turns of the event loop while loading: each is indexed
 * and registered as ELO content (`scanLessonsStored`). 500 were 50–80 ms of JavaScript on the 1M
 * bench database; 100, with the ELO book's content index of that database, 25–50 ms.
 */
const LOAD_TURN_EVERY = 50;
/**
 * Ids of the newest lessons read, and lessons beyond the bound counted, per statement at start-up.
 * Each lesson costs a heap page read: on the 1M bench database 10,001 ids at once took 100–230 ms,
 * in the fourth whole run pages of 2,000 took 80–175 ms, and on the fifth run's database, just
 * written, count pages of 500 took 25–121 ms.
 */
const ID_PAGE = 500;
const COUNT_PAGE = 200;
/** Lessons per page when every stored lesson is read. */
const STORED_PAGE = 1_000;
/** Lessons let go between two turns of the event loop when the index is trimmed to its bound. */
const TRIM_PAGE = 50;

/**
 * The agent's `scan-model-lesson` memories: written through the runtime (so they are ordinary
 * ElizaOS memories, `entityId = roomId = agentId`), the `maxInMemory` with the newest evidence
 * mirrored in an in-process index (SELF_IMPROVE_LESSONS_IN_MEMORY). When the index is full, the
 * lessons with the oldest evidence are let go (down to 95% of the bound, so letting go is rare);
 * pages of lessons and a group's lessons for dedupe are read from the database.
 */
export class ScanLessonStore {
  readonly index = new ScanLessonIndex();
  /** The calibrated cosine beyond which a lesson is related to a message on meaning alone. */
  readonly relevance: ScanLessonRelevanceFloor;
  private invalidOnLoad = 0;
  private readonly messageVectors = new Map<string, number[]>();
  /** Some stored lesson is not held in the index (the bound was reached). */
  private partial = false;
  /** Groups all of whose stored lessons are held (only tracked while `partial`). */
  private readonly completeGroups = new Set<string>();
  /** Lessons stored: counted by the database at load, then one more for each lesson this process writes. */
  private storedCount = 0;

  constructor(
    private readonly runtime: IAgentRuntime,
    readonly vectorizer: Vectorizer,
    readonly maxInMemory = loadConfig(runtime).SELF_IMPROVE_LESSONS_IN_MEMORY,
  ) {
    this.relevance = new ScanLessonRelevanceFloor(this.index, (text) => vectorizer.embed(text), (message, error) =>
      runtime.logger.warn({ src: 'plugin:self-improve:lessons', agentId: runtime.agentId, error: errorText(error) }, message),
    );
  }

  /** Lessons whose metadata did not validate when loaded (they are left alone, not indexed). */
  get skippedOnLoad(): number {
    return this.invalidOnLoad;
  }

  /**
   * Loads the agent's lessons with the newest evidence, up to the bound, into the index; lessons
   * stored under another vector source are re-embedded. Returns how many the index holds.
   */
  async load(): Promise<number> {
    const db = dbOf(this.runtime);
    await ensureScanLessonIndexes(db).catch((error: unknown) => {
      this.runtime.logger.warn({ src: 'plugin:self-improve:lessons', agentId: this.runtime.agentId, error: errorText(error) }, 'lesson indexes could not be created; lesson pages are read without them');
    });
    const newest = await this.newestIds(db);
    if (newest.length > this.maxInMemory) this.markPartial();
    const memories = await this.read(newest.slice(0, this.maxInMemory).map((r) => r.id as UUID));
    // As the lessons were read before the bound: newest stored first (ties by id), so equal scores rank the same way.
    memories.sort((a, b) => (b.createdAt ?? 0) - (a.createdAt ?? 0) || (a.id && b.id ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : 0));
    for (const [i, memory] of memories.entries()) {
      const lesson = this.validLesson(memory);
      if (lesson) this.index.put(lesson, await this.vectorOf(lesson, memory));
      if (i % LOAD_TURN_EVERY === LOAD_TURN_EVERY - 1) await yieldToEventLoop();
    }
    await this.trim();
    this.relevance.warm();
    await this.index.warmUp(RANK_WARM_UP_CALLS, Date.now(), loadConfig(this.runtime).SELF_IMPROVE_LESSON_HALF_LIFE_DAYS);
    return this.index.size;
  }

  /**
   * The ids of the lessons with the newest evidence, up to one more than the bound, ID_PAGE a
   * statement; counts the lessons beyond them COUNT_PAGE a statement (`storedCount`). A turn of the
   * event loop after each statement.
   */
  private async newestIds(db: Db): Promise<ScanLessonCursor[]> {
    const newest: ScanLessonCursor[] = [];
    for (let after: ScanLessonCursor | null = null; newest.length <= this.maxInMemory; ) {
      const limit = Math.min(ID_PAGE, this.maxInMemory + 1 - newest.length);
      const page = await scanLessonIdsPage(db, this.runtime.agentId, { limit, after });
      newest.push(...page);
      await yieldToEventLoop();
      if (page.length < limit) break;
      after = page[page.length - 1] as ScanLessonCursor;
    }
    let count = newest.length;
    for (let after = newest.length > this.maxInMemory ? (newest[newest.length - 1] as ScanLessonCursor) : null; after !== null; ) {
      const page = await countScanLessonsPage(db, this.runtime.agentId, { limit: COUNT_PAGE, after });
      count += page.n;
      await yieldToEventLoop();
      after = page.n === COUNT_PAGE ? page.last : null;
    }
    this.storedCount = count;
    return newest;
  }

  private async read(ids: readonly UUID[]): Promise<Memory[]> {
    const out: Memory[] = [];
    for (const part of chunks(ids, READ_CHUNK)) {
      out.push(...(await this.runtime.getMemoriesByIds([...part], SCAN_LESSONS_TABLE)));
      await yieldToEventLoop();
    }
    return out;
  }

  /** A stored lesson, or null (logged and counted) when its metadata does not validate. */
  private validLesson(memory: Memory): StoredScanLesson | null {
    const raw = memory.metadata as { type?: string } | undefined;
    if (raw?.type !== SCAN_LESSON_MEMORY_TYPE || !memory.id) return null;
    const parsed = scanLessonMetadataSchema.safeParse(memory.metadata);
    if (parsed.success) return toScanLesson(memory, parsed.data);
    this.invalidOnLoad++;
    this.runtime.logger.warn({ src: 'plugin:self-improve:lessons', agentId: this.runtime.agentId, lessonId: memory.id, issue: parsed.error.issues[0]?.message }, 'lesson metadata is invalid; left out of the index');
    return null;
  }

  private async vectorOf(lesson: StoredScanLesson, memory: Memory): Promise<number[]> {
    if (this.vectorizer.source === 'lexical') return lexicalVector(lesson.text);
    const sameSpace = lesson.metadata.embedding_source === this.vectorizer.source && memory.embedding?.length;
    return sameSpace ? (memory.embedding as number[]) : this.reembed(lesson);
  }

  private markPartial(): void {
    if (!this.partial) this.completeGroups.clear();
    this.partial = true;
  }

  /**
   * Lets go of the lessons with the oldest evidence once the index holds more than the bound, down
   * to 95% of it, TRIM_PAGE at a time with a turn of the event loop between: each one let go is
   * news the ELO book and the rule book act on (`scanLessonsLetGo`), and the 500 of a 10,000 bound
   * at once were a stall of about 100 ms on the 1M database (bench/stall-trace.ts under --cpu-prof:
   * the ELO content index's removals). A lesson already gone (another trim) is skipped.
   */
  private async trim(): Promise<void> {
    if (this.index.size <= this.maxInMemory) return;
    this.markPartial();
    const target = Math.floor(this.maxInMemory * 0.95);
    for (const page of chunks(this.index.oldest(this.index.size - target), TRIM_PAGE)) {
      for (const id of page) {
        if (this.index.size <= target || !this.index.has(id)) continue;
        const group = this.index.get(id)?.metadata.group_id;
        if (group !== undefined) this.completeGroups.delete(group);
        this.index.remove(id);
      }
      await yieldToEventLoop();
    }
  }

  /** Makes sure every stored lesson of `group` is in the index (read from the database when some may not be): dedupe compares with all of them. */
  async holdGroup(group: string): Promise<void> {
    if (!this.partial || this.completeGroups.has(group)) return;
    const ids = (await scanLessonIdsOfGroup(dbOf(this.runtime), this.runtime.agentId, group)) as UUID[];
    for (const memory of await this.read(ids.filter((id) => !this.index.has(id)))) {
      const lesson = this.validLesson(memory);
      if (lesson) this.index.put(lesson, await this.vectorOf(lesson, memory));
    }
    this.completeGroups.add(group);
  }

  /**
   * How many lessons the agent has stored (held in memory or not): counted by the database when the
   * lessons were (re)loaded — at start, and before a learning pass after another process learned —
   * plus those written since. Answered from memory: a count by the database reads every lesson's row.
   */
  count(): number {
    return Math.max(this.storedCount, this.index.size);
  }

  /**
   * One page of the agent's lessons, newest evidence first (`newestEvidenceFirst`): `limit` after
   * `after` (from the newest without), only those of `ids` when given. Ids and order come from the
   * database; lessons held in memory are taken from there, the others read (all without their
   * evidence ids, as held: `stored` has them). `last` is where the next page starts, null when this is the last page.
   */
  async page(options: PageOptions): Promise<{ lessons: ScanLesson[]; last: ScanLessonCursor | null }> {
    const { rows, last } = await this.pageRows(options);
    const held = new Map<string, ScanLesson>();
    for (const row of rows) {
      const lesson = this.index.get(row.id as UUID);
      if (lesson) held.set(row.id, lesson);
    }
    for (const lesson of await this.readLessons(rows.filter((r) => !held.has(r.id)).map((r) => r.id as UUID))) held.set(lesson.id, heldScanLesson(lesson));
    return { lessons: rows.map((r) => held.get(r.id)).filter((l): l is ScanLesson => l !== undefined), last };
  }

  /** The ids of one page (see `page`) and where the next starts. */
  private async pageRows(options: PageOptions): Promise<{ rows: ScanLessonCursor[]; last: ScanLessonCursor | null }> {
    if (options.ids?.length === 0) return { rows: [], last: null };
    const more = await scanLessonIdsPage(dbOf(this.runtime), this.runtime.agentId, { ...options, limit: options.limit + 1 });
    const rows = more.slice(0, options.limit);
    return { rows, last: more.length > options.limit ? (rows[rows.length - 1] as ScanLessonCursor) : null };
  }

  /** The stored lessons of `ids` that validate, as stored (with their evidence ids). */
  private async readLessons(ids: readonly UUID[]): Promise<StoredScanLesson[]> {
    return (await this.read(ids)).map((m) => this.validLesson(m)).filter((l): l is StoredScanLesson => l !== null);
  }

  private async reembed(lesson: StoredScanLesson): Promise<number[]> {
    const vector = await this.vectorizer.embed(lesson.text);
    const metadata: ScanLessonMetadata = { ...lesson.metadata, embedding_source: this.vectorizer.source };
    await this.runtime.updateMemory({ id: lesson.id, metadata, embedding: vector });
    lesson.metadata = metadata;
    return vector;
  }

  nearestInGroup(group: string, vector: ArrayLike<number>): Neighbour<UUID> | null {
    return this.index.nearestInGroup(group, vector);
  }

  async create(id: UUID, text: string, metadata: ScanLessonMetadata, vector: number[], createdAt: number): Promise<StoredScanLesson> {
    const memory = agentMemory(this.runtime, id, text, metadata, { createdAt, unique: true, ...(this.vectorizer.source === 'model' ? { embedding: vector } : {}) });
    await this.runtime.createMemory(memory, SCAN_LESSONS_TABLE);
    if (!this.index.has(id)) this.storedCount++;
    const lesson: StoredScanLesson = { id, text, metadata, createdAt };
    this.index.put(lesson, vector);
    await this.trim();
    this.relevance.warm();
    return lesson;
  }

  async update(lesson: ScanLesson, text: string, metadata: ScanLessonMetadata): Promise<StoredScanLesson> {
    const textChanged = text !== lesson.text;
    const vector = textChanged ? await this.vectorizer.embed(text) : undefined;
    const ok = await this.runtime.updateMemory({
      id: lesson.id,
      content: { text, source: 'plugin-self-improve' },
      metadata,
      ...(vector && this.vectorizer.source === 'model' ? { embedding: vector } : {}),
    });
    if (!ok) throw new Error(`could not update lesson ${lesson.id}`);
    const updated: StoredScanLesson = { ...lesson, text, metadata };
    this.index.put(updated, vector);
    await this.trim();
    this.relevance.warm();
    return updated;
  }

  /** Every stored lesson as stored (with its evidence ids), newest evidence first, read a page at a time. */
  async stored(): Promise<StoredScanLesson[]> {
    const out: StoredScanLesson[] = [];
    let after: ScanLessonCursor | null = null;
    do {
      const page = await this.pageRows({ limit: STORED_PAGE, after });
      const byId = new Map((await this.readLessons(page.rows.map((r) => r.id as UUID))).map((l) => [l.id as string, l]));
      out.push(...page.rows.map((r) => byId.get(r.id)).filter((l): l is StoredScanLesson => l !== undefined));
      after = page.last;
    } while (after !== null);
    return out;
  }

  /** The vector of a message's text, embedded once per message (providers run several times per message). */
  async vectorForMessage(message: Memory): Promise<number[]> {
    const key = message.id ?? message.content.text ?? '';
    const cached = this.messageVectors.get(key);
    if (cached) return cached;
    const vector = await this.vectorizer.embed(message.content.text ?? '');
    this.messageVectors.set(key, vector);
    if (this.messageVectors.size > MESSAGE_VECTOR_CACHE) this.messageVectors.delete(this.messageVectors.keys().next().value as string);
    return vector;
  }

  /** The lessons held in memory. */
  all(): ScanLesson[] {
    return this.index.all();
  }
}

function toScanLesson(memory: Memory, metadata: ScanLessonMetadata): StoredScanLesson {
  return { id: memory.id as UUID, text: memory.content.text ?? '', metadata, createdAt: memory.createdAt ?? 0 };
}

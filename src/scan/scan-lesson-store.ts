import { type IAgentRuntime, type Memory, ModelType, type UUID } from '@elizaos/core';
import { lexicalVector } from '../shared/lexical-vector';
import type { Neighbour } from '../shared/similarity';
import { agentMemory } from '../shared/agent-memory';
import { ScanLessonIndex } from './scan-lesson-index';
import { ScanLessonRelevanceFloor } from '../shared/scan-lesson-relevance';
import { type ScanLesson, type ScanLessonMetadata, SCAN_LESSON_MEMORY_TYPE, SCAN_LESSONS_TABLE, scanLessonMetadataSchema } from './scan-lesson-metadata';

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

/** Message vectors kept for the provider (oldest dropped first). */
const MESSAGE_VECTOR_CACHE = 64;

/**
 * The agent's `scan-model-lesson` memories: written through the runtime (so they are ordinary
 * ElizaOS memories, `entityId = roomId = agentId`), mirrored in an in-process index.
 */
export class ScanLessonStore {
  readonly index = new ScanLessonIndex();
  /** The calibrated cosine beyond which a lesson is related to a message on meaning alone. */
  readonly relevance: ScanLessonRelevanceFloor;
  private invalidOnLoad = 0;
  private readonly messageVectors = new Map<string, number[]>();

  constructor(
    private readonly runtime: IAgentRuntime,
    readonly vectorizer: Vectorizer,
  ) {
    this.relevance = new ScanLessonRelevanceFloor(this.index, (text) => vectorizer.embed(text), (message, error) =>
      runtime.logger.warn({ src: 'plugin:self-improve:lessons', agentId: runtime.agentId, error: error instanceof Error ? error.message : String(error) }, message),
    );
  }

  /** Lessons whose metadata did not validate when loaded (they are left alone, not indexed). */
  get skippedOnLoad(): number {
    return this.invalidOnLoad;
  }

  /** Loads every lesson of the agent into the index; lessons stored under another vector source are re-embedded. */
  async load(): Promise<number> {
    const memories = await this.runtime.getMemories({ tableName: SCAN_LESSONS_TABLE, roomId: this.runtime.agentId, agentId: this.runtime.agentId });
    for (const memory of memories) {
      const raw = memory.metadata as { type?: string } | undefined;
      if (raw?.type !== SCAN_LESSON_MEMORY_TYPE || !memory.id) continue;
      const parsed = scanLessonMetadataSchema.safeParse(memory.metadata);
      if (!parsed.success) {
        this.invalidOnLoad++;
        this.runtime.logger.warn({ src: 'plugin:self-improve:lessons', agentId: this.runtime.agentId, lessonId: memory.id, issue: parsed.error.issues[0]?.message }, 'lesson metadata is invalid; left out of the index');
        continue;
      }
      const lesson = toScanLesson(memory, parsed.data);
      const sameSpace = parsed.data.embedding_source === this.vectorizer.source && memory.embedding?.length;
      const vector = this.vectorizer.source === 'lexical' ? lexicalVector(lesson.text) : sameSpace ? (memory.embedding as number[]) : await this.reembed(lesson);
      this.index.put(lesson, vector);
    }
    this.relevance.warm();
    return this.index.size;
  }

  private async reembed(lesson: ScanLesson): Promise<number[]> {
    const vector = await this.vectorizer.embed(lesson.text);
    const metadata: ScanLessonMetadata = { ...lesson.metadata, embedding_source: this.vectorizer.source };
    await this.runtime.updateMemory({ id: lesson.id, metadata, embedding: vector });
    lesson.metadata = metadata;
    return vector;
  }

  nearestInGroup(group: string, vector: ArrayLike<number>): Neighbour<UUID> | null {
    return this.index.nearestInGroup(group, vector);
  }

  async create(id: UUID, text: string, metadata: ScanLessonMetadata, vector: number[], createdAt: number): Promise<ScanLesson> {
    const memory = agentMemory(this.runtime, id, text, metadata, { createdAt, unique: true, ...(this.vectorizer.source === 'model' ? { embedding: vector } : {}) });
    await this.runtime.createMemory(memory, SCAN_LESSONS_TABLE);
    const lesson: ScanLesson = { id, text, metadata, createdAt };
    this.index.put(lesson, vector);
    return lesson;
  }

  async update(lesson: ScanLesson, text: string, metadata: ScanLessonMetadata): Promise<ScanLesson> {
    const textChanged = text !== lesson.text;
    const vector = textChanged ? await this.vectorizer.embed(text) : undefined;
    const ok = await this.runtime.updateMemory({
      id: lesson.id,
      content: { text, source: 'plugin-self-improve' },
      metadata,
      ...(vector && this.vectorizer.source === 'model' ? { embedding: vector } : {}),
    });
    if (!ok) throw new Error(`could not update lesson ${lesson.id}`);
    const updated: ScanLesson = { ...lesson, text, metadata };
    this.index.put(updated, vector);
    return updated;
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

  all(): ScanLesson[] {
    return this.index.all();
  }
}

function toScanLesson(memory: Memory, metadata: ScanLessonMetadata): ScanLesson {
  return { id: memory.id as UUID, text: memory.content.text ?? '', metadata, createdAt: memory.createdAt ?? 0 };
}

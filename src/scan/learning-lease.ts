import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { learningLease } from './tables';
import { type Db, queryRows } from '../shared/sql';

/** How long a lease lasts unless renewed: the holder renews it every third of that while it holds it. */
const LEASE_MS = 15_000;
/** How often a process waiting for the lease asks again. */
const RETRY_MS = 200;

/**
 * One learning pass per agent at a time, across every process on the database (an agent and the
 * CLI, or two agents): a row per agent names the holder and when its lease runs out. Taking it is
 * one upsert that succeeds only when the lease is free, expired or already ours, so it needs no
 * session state and works on any pool (PGlite or PostgreSQL). A holder that crashes loses the
 * lease when it expires.
 */
export class LearningLease {
  private readonly holder = randomUUID();
  private renewal: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly db: Db,
    private readonly agentId: string,
    private readonly leaseMs = LEASE_MS,
  ) {}

  /** Takes the lease if it is free; the number of passes finished so far, or null when another process holds it. */
  async tryAcquire(): Promise<number | null> {
    const [row] = await queryRows<{ generation: number | string }>(
      this.db,
      sql`INSERT INTO ${learningLease} (agent_id, holder, expires_at, generation)
          VALUES (${this.agentId}::uuid, ${this.holder}, now() + ${this.leaseMs} * interval '1 millisecond', 0)
          ON CONFLICT (agent_id) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
          WHERE ${learningLease.expiresAt} < now() OR ${learningLease.holder} = EXCLUDED.holder
          RETURNING generation`,
    );
    return row ? Number(row.generation) : null;
  }

  /** Waits until the lease is ours; the number of passes finished so far. */
  async acquire(): Promise<number> {
    for (;;) {
      const generation = await this.tryAcquire();
      if (generation !== null) {
        this.keepRenewing();
        return generation;
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }

  /** Renews the lease every third of its length until `release` (a failed renewal is retried at the next tick). */
  private keepRenewing(): void {
    if (this.renewal) return;
    this.renewal = setInterval(() => void this.renew().catch(() => undefined), Math.max(1, Math.floor(this.leaseMs / 3)));
    this.renewal.unref?.();
  }

  /** Extends the lease while a long pass runs. */
  async renew(): Promise<void> {
    await this.db.execute(
      sql`UPDATE ${learningLease} SET expires_at = now() + ${this.leaseMs} * interval '1 millisecond' WHERE agent_id = ${this.agentId}::uuid AND holder = ${this.holder}`,
    );
  }

  /** Gives the lease up after a pass, counting it; returns the new number of passes finished. */
  async release(): Promise<number> {
    clearInterval(this.renewal);
    this.renewal = undefined;
    const [row] = await queryRows<{ generation: number | string }>(
      this.db,
      sql`UPDATE ${learningLease} SET expires_at = now() - interval '1 millisecond', generation = generation + 1
          WHERE agent_id = ${this.agentId}::uuid AND holder = ${this.holder} RETURNING generation`,
    );
    return Number(row?.generation ?? 0);
  }
}

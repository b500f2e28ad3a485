import { describe, expect, test } from 'bun:test';
import { type EloLogSource, EloLogSamples, SAMPLE_PAGE } from '../../src/elo/elo-log-samples';
import type { EloLogName } from '../../src/elo/tables';

/** An append-only log by seq, as the store keeps it, that counts the entries it hands out. */
class CountingLog implements EloLogSource {
  rows: { seq: number; entry: Record<string, unknown> }[] = [];
  private next = 1;
  served = 0;
  statements = 0;

  append(n: number): void {
    for (let i = 0; i < n; i++) {
      this.rows.push({ seq: this.next, entry: { n: this.next } });
      this.next++;
    }
  }

  /** Retention: the oldest entries go. */
  keepNewest(n: number): void {
    this.rows = this.rows.slice(Math.max(0, this.rows.length - n));
  }

  async logPage(_name: EloLogName, afterSeq: number, beforeSeq: number | null, limit: number) {
    this.statements++;
    const page = this.rows
      .filter((r) => r.seq > afterSeq && (beforeSeq === null || r.seq < beforeSeq))
      .sort((a, b) => b.seq - a.seq)
      .slice(0, limit);
    this.served += page.length;
    return page.map((r) => ({ ...r }));
  }

  async oldestSeq(): Promise<number | null> {
    return this.rows[0]?.seq ?? null;
  }

  /** What a direct read of the newest `limit` gives. */
  newest(limit: number): Record<string, unknown>[] {
    return [...this.rows]
      .reverse()
      .slice(0, limit)
      .map((r) => r.entry);
  }
}

describe('EloLogSamples: the newest entries of a log, kept between reports', () => {
  test('read whole a page at a time the first time, then only what was appended since', async () => {
    const log = new CountingLog();
    const samples = new EloLogSamples(log, 600);
    log.append(1_000);
    expect(await samples.newest('sessions')).toEqual(log.newest(600));
    expect(log.served).toBe(600);
    // 600 entries a page at a time: 6 statements of 100.
    expect(log.statements).toBe(Math.ceil(600 / SAMPLE_PAGE));
    expect(log.statements).toBeGreaterThan(1);
    log.served = 0;
    log.append(7);
    expect(await samples.newest('sessions')).toEqual(log.newest(600));
    expect(log.served).toBe(7);
    log.served = 0;
    expect(await samples.newest('sessions')).toEqual(log.newest(600));
    expect(log.served).toBe(0);
  });

  test('more new entries than the sample holds: only the newest are kept', async () => {
    const log = new CountingLog();
    const samples = new EloLogSamples(log, 100);
    log.append(50);
    expect(await samples.newest('updates')).toEqual(log.newest(100));
    log.append(400);
    expect(await samples.newest('updates')).toEqual(log.newest(100));
  });

  test('entries retention deleted leave the sample; an emptied log, refilled, is read again', async () => {
    const log = new CountingLog();
    const samples = new EloLogSamples(log, 100);
    log.append(80);
    expect(await samples.newest('searches')).toEqual(log.newest(100));
    log.append(10);
    log.keepNewest(30);
    expect(await samples.newest('searches')).toEqual(log.newest(100));
    log.rows = [];
    expect(await samples.newest('searches')).toEqual([]);
    log.append(5);
    expect(await samples.newest('searches')).toEqual(log.newest(100));
  });

  test('each log is kept apart', async () => {
    const log = new CountingLog();
    const samples = new EloLogSamples(log, 10);
    log.append(20);
    expect(await samples.newest('updates')).toHaveLength(10);
    log.served = 0;
    expect(await samples.newest('sessions')).toHaveLength(10);
    expect(log.served).toBe(10);
  });

  test('a sample with nothing appended or deleted is kept as it is: the same entry objects, not slimmed again', async () => {
    const log = new CountingLog();
    const slimmed: number[] = [];
    const samples = new EloLogSamples(log, 50, async (_name, entries) => {
      slimmed.push(entries.length);
      return entries.map((entry) => ({ ...entry, slim: true }));
    });
    log.append(60);
    const first = await samples.newest('sessions');
    expect(slimmed).toEqual([50]);
    const again = await samples.newest('sessions');
    expect(slimmed).toEqual([50]);
    // Each entry is the very object the first read gave (a report's checks of it are remembered).
    expect(again).toHaveLength(50);
    again.forEach((entry, i) => expect(entry).toBe(first[i] as Record<string, unknown>));
    log.append(2);
    const appended = await samples.newest('sessions');
    expect(slimmed).toEqual([50, 50]);
    expect(appended[0]).toEqual({ n: 62, slim: true });
    log.keepNewest(10);
    expect(await samples.newest('sessions')).toHaveLength(10);
    expect(slimmed).toEqual([50, 50, 10]);
  });
});

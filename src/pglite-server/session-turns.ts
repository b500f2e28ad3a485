/**
 * PGlite's one session, shared by the connections of `self-improve pglite-server` in turns: one
 * holds it for a whole request or transaction, the others wait in the order they came. Knows what
 * each last ran, so that a long wait can be told with the statements that make it.
 */

/** A connection as the turns know it: what it last ran, or waits to run, and since when. */
export interface Turn {
  statement: string | null;
  since: number;
}

/** How long a connection may wait for the session before the server says who holds it, and why. */
export const LONG_WAIT_MS = 10_000;

/** Who holds PGlite's one session, and who waits for it, in arrival order. */
export class SessionTurns {
  private owner: Turn | null = null;
  private waiting: Array<{ conn: Turn; resolve: () => void }> = [];
  /** The holder last told of, so a long wait is told once per holder. */
  private told: Turn | null = null;

  async acquire(conn: Turn): Promise<void> {
    if (this.owner === conn) return;
    if (this.owner === null) {
      this.owner = conn;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push({ conn, resolve }));
  }

  holds(conn: Turn): boolean {
    return this.owner === conn;
  }

  release(conn: Turn): void {
    if (this.owner !== conn) return;
    const next = this.waiting.shift();
    this.owner = next ? next.conn : null;
    next?.resolve();
  }

  forget(conn: Turn): void {
    this.waiting = this.waiting.filter((w) => w.conn !== conn);
  }

  /** A line about the first waiter when it has waited over LONG_WAIT_MS for the present holder (once per holder), else null. */
  longWait(now: number): string | null {
    const first = this.waiting[0]?.conn;
    if (!first || !this.owner || this.told === this.owner || now - first.since < LONG_WAIT_MS) return null;
    this.told = this.owner;
    const quote = (text: string | null) => (text === null ? '(no statement)' : JSON.stringify(text));
    return `pglite-server: ${this.waiting.length} connection(s) waiting, the first for ${Math.round((now - first.since) / 1000)} s to run ${quote(first.statement)}; the session is held by a connection in a transaction, whose last statement, ${Math.round((now - this.owner.since) / 1000)} s ago, was ${quote(this.owner.statement)} (PGlite has one session: a client that waits on another connection inside a transaction never gets it)`;
  }
}

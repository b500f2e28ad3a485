// The collector hints (`CollectorHints`, src/shared/event-loop.ts) are given while plugin-sql runs
// PGlite in the process, whose statements resolve without I/O and leave their garbage to the
// hints; an agent on PostgreSQL waits on a socket for each statement, so Bun's collector runs from
// those turns and no hint is given.
import { describe, expect, spyOn, test } from 'bun:test';
import selfImprovePlugin from '../../src/index';
import { bootRuntime } from '../../src/cli/boot';
import { CollectorHints } from '../../src/shared/event-loop';
import { pgliteInProcess } from '../../src/shared/plugin-sql-globals';
import { startTestPostgres } from '../helpers/postgres-server';

const settings = { EMBEDDING_DIMENSION: '384', SELF_IMPROVE_LESSON_MODEL: 'off' };

/** Whether a new `CollectorHints` (the process's default gate) asks Bun's collector now; the collector itself is not run. */
function hintAsked(): boolean {
  const gc = spyOn(Bun, 'gc').mockImplementation(() => 0);
  try {
    const asked = new CollectorHints().hint();
    expect(gc.mock.calls).toEqual(asked ? [[false]] : []);
    return asked;
  } finally {
    gc.mockRestore();
  }
}

describe('collector hints follow the database the agent runs on', () => {
  test('given while an agent runs on PGlite in the process; not after it closed', async () => {
    const agent = await bootRuntime({ dataDir: 'memory://', plugins: [selfImprovePlugin], settings });
    try {
      expect(pgliteInProcess()).toBe(true);
      expect(hintAsked()).toBe(true);
    } finally {
      await agent.close();
    }
    expect(pgliteInProcess()).toBe(false);
    expect(hintAsked()).toBe(false);
  });

  test('not given while an agent runs on PostgreSQL (plugin-sql over the wire)', async () => {
    const database = await startTestPostgres();
    try {
      const agent = await bootRuntime({ postgresUrl: database.url, plugins: [selfImprovePlugin], settings });
      try {
        expect(pgliteInProcess()).toBe(false);
        expect(hintAsked()).toBe(false);
      } finally {
        await agent.close();
      }
    } finally {
      await database.stop();
    }
  });
});

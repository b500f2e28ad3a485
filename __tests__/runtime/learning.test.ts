import { expect, test } from 'bun:test';
import selfImprovePlugin from '../../src/index';
import { LESSONS_TABLE } from '../../src/services/lesson-metadata';
import { SCAN_OUTCOME_SERVICE, type ScanOutcomeService } from '../../src/services/scan-outcome-service';
import { bootRuntime } from '../../src/runtime/boot';
import { makeRows } from '../helpers/rows';
import { createTestModelsPlugin } from '../helpers/test-models';

test('pipeline smoke: ingest, learn, lessons stored', async () => {
  const models = createTestModelsPlugin();
  const { runtime, close } = await bootRuntime({ dataDir: 'memory://', plugins: [selfImprovePlugin, models.plugin], settings: { EMBEDDING_DIMENSION: '384' } });
  try {
    const service = (await runtime.getServiceLoadPromise(SCAN_OUTCOME_SERVICE as never)) as unknown as ScanOutcomeService;
    const rows = makeRows({ n: 40, labels: ['rejected_fp', 'rejected_fp', 'rejected_fp', 'fixed'], category: 'sql-injection' });
    const result = await service.ingest(rows);
    expect(result.accepted).toBe(40);
    const report = await service.learnPending({ asOf: Date.parse('2026-11-12T00:00:00Z') });
    console.error(JSON.stringify(report));
    const memories = await runtime.getMemories({ tableName: LESSONS_TABLE, roomId: runtime.agentId });
    console.error(JSON.stringify(memories.map((m) => [m.content.text, m.metadata]), null, 1).slice(0, 3000));
    expect(memories.length).toBeGreaterThan(0);
  } finally {
    await close();
  }
});

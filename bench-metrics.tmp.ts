import { startAgent } from './__tests__/helpers/runtime';
const LABELS = ['accepted', 'ignored', 'rejected_fp', 'fixed', 'reopened'];
const START = Date.parse('2026-01-01T00:00:00Z');
async function run(total: number) {
  const agent = await startAgent();
  let x = 7;
  const rnd = () => ((x = (x * 1103515245 + 12345) % 2147483648), x / 2147483648);
  const t0 = Date.now();
  for (let done = 0; done < total; done += 2000) {
    const rows = Array.from({ length: 2000 }, (_, i) => ({
      finding_key: `f-${Math.floor((done + i) / 2)}`,
      label: LABELS[Math.floor(rnd() * 5)],
      ts: new Date(START + Math.floor(rnd() * 360 * 86400_000)).toISOString(),
      project: `p${Math.floor(rnd() * 8)}`, scanner: `s${Math.floor(rnd() * 3)}`, model_provider: 'm', model_name: `n${Math.floor(rnd() * 3)}`,
      confidence: Math.round(rnd() * 10) / 10,
    }));
    await agent.service.ingest(rows);
  }
  const ingestMs = Date.now() - t0;
  let last = performance.now();
  const acc: Record<string, number> = {};
  (globalThis as any).__t = (l: string) => { const n = performance.now(); acc[l] = (acc[l] ?? 0) + n - last; last = n; };
  const times: number[] = [];
  const wtimes: number[] = [];
  for (let i = 0; i < 40; i++) {
    const asOfMs = START + 200 * 86400_000 + i * 3_700_000;
    let s = performance.now(); last = s;
    await agent.service.metrics({ asOfMs, k: 20 });
    times.push(performance.now() - s);
    s = performance.now();
    await agent.service.weeklyTriage({ weeks: 12, asOfMs, k: 20 });
    wtimes.push(performance.now() - s);
  }
  const p = (a: number[], q: number) => a.sort((u, v) => u - v)[Math.min(a.length - 1, Math.floor(q * a.length))]?.toFixed(1);
  console.log(JSON.stringify(acc));
  const s0 = performance.now(); await agent.service.outcomes.forMetrics(); console.log('forMetrics ms', performance.now() - s0);
  console.log(JSON.stringify({ total, ingestMs, metrics_p50: p(times, 0.5), metrics_p99: p(times, 0.99), weekly_p50: p(wtimes, 0.5), weekly_p99: p(wtimes, 0.99) }));
  await agent.close();
}
await run(Number(process.argv[2] ?? 10000));
process.exit(0);

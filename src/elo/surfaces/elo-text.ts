import { ELO_TIERS } from '../model/tiers';
import type { SuccessMetric } from '../model/stats';
import type { EloReport } from '../elo-report';

const BAR_CHARS = 40;
const percent = (x: number | null) => (x === null ? 'n/a' : `${(x * 100).toFixed(1)}%`);
const verdict = (met: boolean | null) => (met === null ? 'not measurable yet' : met ? 'met' : 'NOT met');

function metricLine(name: string, m: SuccessMetric): string {
  return `  ${name.padEnd(32)} ${percent(m.value).padStart(7)}  target ${m.comparison} ${percent(m.target)}  ${verdict(m.met)} (n=${m.n})`;
}

/** The human-readable `elo stats`: tiers, histogram bars, top items per kind, convergence, success metrics. */
export function eloReportText(report: EloReport): string {
  const { overall, by_kind } = report.distribution;
  const most = Math.max(1, ...overall.histogram.map((b) => b.count));
  const c = report.convergence;
  const skipped = report.skipped.updates + report.skipped.searches + report.skipped.sessions;
  return [
    `ELO book as of ${report.as_of}: ${overall.count} items (${Object.entries(by_kind).map(([kind, d]) => `${kind} ${d.count}`).join(', ') || 'none'})`,
    `tiers: ${ELO_TIERS.map((t) => `${t} ${overall.tiers[t]}`).join(' · ')}`,
    `histogram (${report.bucket_width}-point buckets; empty ones not shown):`,
    ...overall.histogram.map((b) => `  ${`${b.from}–${b.to}`.padStart(12)} ${'█'.repeat(Math.max(1, Math.round((b.count / most) * BAR_CHARS)))} ${b.count}`),
    `top ${report.k} per kind:`,
    ...Object.entries(report.top).flatMap(([kind, items]) => [`  ${kind}`, ...items.map((i) => `    ${i.elo.toFixed(1).padStart(8)}  ${i.tier.padEnd(8)} ${i.id}${i.title ? `  "${i.title}"` : ''}  (${i.updates} updates)`)]),
    `convergence (${c.window.since === null ? 'whole log sample' : `last ${c.window.sessions} sessions, since ${c.window.since}`}): ${c.deltas.count} learning deltas, mean |Δ| ${c.deltas.mean_abs}, std-dev ${c.deltas.std_dev}; ${c.items_moved} items moved, RMS net change ${c.rms_net_change} points = ${percent(c.relative_change)} of 400 -> ${c.stable === null ? 'nothing moved' : c.stable ? 'stable' : 'still moving'}; ${c.drift.count} drift updates apart`,
    'success metrics (tiers now):',
    metricLine('search efficiency (top-5 HIGH)', report.success_metrics.search_efficiency),
    metricLine('context accuracy (HIGH/MEDIUM)', report.success_metrics.context_accuracy),
    metricLine('token savings', report.success_metrics.token_savings),
    metricLine('convergence after 100 sessions', report.success_metrics.convergence_after_100_sessions),
    `log sample: ${report.sample.updates} updates, ${report.sample.searches} searches, ${report.sample.sessions} sessions${skipped > 0 ? `; ${skipped} malformed entries skipped` : ''}`,
  ].join('\n');
}

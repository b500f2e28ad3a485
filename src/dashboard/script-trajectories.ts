/** Trajectories the trajectories panel lists (the newest first). */
export const DASHBOARD_TRAJECTORIES = 20;

/**
 * The trajectories panel: the newest scored trajectories (seed 004) — run id, where it came from,
 * end, quality, reward, sats actually paid, and whether it was accepted (with the failed thresholds
 * as the tooltip).
 * The route sends no transcripts; the panel shows none.
 */
export const SCRIPT_TRAJECTORIES = `
  var SOURCE_NAMES = { runtime: "the agent's own run", http: 'submitted over HTTP', cli: 'submitted with the CLI' };
  function trajectories() {
    get('trajectories', { limit: '${DASHBOARD_TRAJECTORIES}' }).then(function (page) {
      fillRows('trajectories-list', page.trajectories, function (t) {
        var ev = t.evaluation;
        return [
          cell(t.run_id || t.id, undefined, t.id), cell(SOURCE_NAMES[t.source] || t.source, 'nowrap'), cell(t.ended_at ? t.ended_at.slice(0, 16).replace('T', ' ') : '–', 'nowrap'),
          cell(fixed(ev.quality.quality, 2), 'points'), cell(String(ev.reward.total_sats), 'points'), cell(String(t.paid_sats), 'points'),
          cell(ev.accepted ? 'yes' : 'no', ev.accepted ? 'yes' : 'no', ev.reasons.join('; ')),
        ];
      });
      set('trajectories-status', page.count === 0 ? 'No trajectories yet.' : page.count + ' trajectories · the newest ' + page.trajectories.length + ' shown · paid: sats the ledger was asked to pay (0 when not accepted, not paid, or over the day\\'s cap)');
    }).catch(function (e) { set('trajectories-status', 'Trajectories not available: ' + e.message); });
  }
`;

/** Transactions the running-total chart reads (the newest ones). */
export const DASHBOARD_LEDGER_HISTORY = 1_000;

/**
 * The reward ledger panel (seed 000's dashboard): the score widget, the running total over the
 * newest transactions as a line with its lowest and highest values (and 0, where it does not
 * crowd them) on the axis, the category
 * breakdown, and a status line with the checksum.
 */
export const SCRIPT_LEDGER = `
  function ledgerChart(transactions) {
    var svg = clear(el('chart'));
    var points = transactions.slice().reverse().map(function (t) { return t.running_total; });
    if (points.length === 0) return;
    var left = 60, right = 750, top = 12, bottom = 150;
    var min = Math.min.apply(null, points.concat([0])), max = Math.max.apply(null, points.concat([0]));
    var span = max - min || 1, step = points.length > 1 ? (right - left) / (points.length - 1) : 0;
    var y = function (p) { return bottom - ((p - min) / span) * (bottom - top); };
    var placed = [];
    [min, max, 0].forEach(function (v) {
      if (placed.some(function (p) { return Math.abs(y(p) - y(v)) < 14; })) return;
      placed.push(v);
      svg.appendChild(svgNode('line', { x1: left, x2: right, y1: y(v).toFixed(1), y2: y(v).toFixed(1), class: 'grid' }));
      svg.appendChild(svgNode('text', { x: left - 6, y: (y(v) + 4).toFixed(1), 'text-anchor': 'end' }, signed(v)));
    });
    svg.appendChild(svgNode('line', { x1: left, x2: left, y1: top, y2: bottom, class: 'axis' }));
    var d = points.map(function (p, i) { return (i === 0 ? 'M' : 'L') + (left + i * step).toFixed(1) + ' ' + y(p).toFixed(1); }).join(' ');
    svg.appendChild(svgNode('path', { d: d, fill: 'none', stroke: '#3366cc', 'stroke-width': '2' }));
    svg.appendChild(svgNode('text', { x: left, y: '172' }, 'oldest of ' + points.length + ' transactions'));
    svg.appendChild(svgNode('text', { x: right, y: '172', 'text-anchor': 'end' }, 'newest'));
  }
  function ledgerCategories(score) {
    var rows = [];
    [['reward', score.rewards.by_category], ['penalty', score.penalties.by_category]].forEach(function (pair) {
      Object.keys(pair[1]).forEach(function (name) { rows.push([name, pair[0], signed(pair[1][name])]); });
    });
    fillRows('categories', rows, function (r) { return [cell(r[0]), cell(r[1]), cell(r[2], 'points')]; });
  }
  function ledger() {
    Promise.all([get('ledger/score'), get('ledger/metrics'), get('ledger/history', { limit: '${DASHBOARD_LEDGER_HISTORY}' })]).then(function (r) {
      var score = r[0], metrics = r[1], history = r[2].transactions;
      set('total', String(score.total_score));
      set('rewards', signed(score.rewards.total_earned));
      set('penalties', String(score.penalties.total_incurred));
      set('efficiency', metrics.learning_efficiency + '%');
      set('session', signed(score.session_score));
      var trend = el('trend');
      trend.textContent = score.session_score > 0 ? '▲ up this session' : score.session_score < 0 ? '▼ down this session' : '– flat this session';
      trend.className = score.session_score > 0 ? 'up' : score.session_score < 0 ? 'down' : '';
      ledgerChart(history);
      ledgerCategories(score);
      set('status', 'Updated ' + new Date().toLocaleTimeString() + ' · ' + metrics.actions_total + ' transactions · checksum ' + (score.checksum.is_valid ? 'valid' : 'INVALID'));
    }).catch(function (e) { set('status', 'Could not load the ledger: ' + e.message); });
  }
`;

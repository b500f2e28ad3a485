/**
 * The reward ledger dashboard (seed 000 "Visual Dashboard Integration") with the ELO panel (seed
 * 002 Phase 5): one self-contained HTML page, no external assets. It reads the plugin's own JSON
 * routes relative to its own address (keeping the page's query string, e.g. the agent id), and
 * refreshes every 5 seconds. The ELO panel (tier counts, histogram, top items per kind) reads
 * `elo` on its own, so an agent without that route still shows the ledger and says the ELO panel
 * is not available. The rules panel reads `rules?status=active` on the same refresh: the top
 * active rules that are not flagged for review, by type priority (NEVER, MUST, CHECK, PREFER) then
 * confidence now (highest first) then id, and how many are flagged or in conflict. All text from
 * the ledger, the book and the rules is set with textContent, never as HTML.
 */
export const DASHBOARD_REFRESH_MS = 5_000;
/** Top items per kind the ELO panel shows. */
export const DASHBOARD_ELO_TOP_K = 5;
/** Rules the rules panel shows. */
export const DASHBOARD_TOP_RULES = 10;

export const DASHBOARD_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Self-improve: reward ledger</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #1d2330; background: #f6f7f9; }
  h1 { font-size: 1.3rem; margin: 0 0 1rem; }
  h2 { font-size: 1rem; margin: 0 0 .5rem; }
  section { background: #fff; border: 1px solid #dde1e7; border-radius: 8px; padding: 1rem; margin-bottom: 1rem; }
  .widget { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap: .75rem; }
  .figure .label { display: block; color: #5b6475; font-size: .8rem; }
  .figure .value { font-size: 1.5rem; font-weight: 600; }
  .up { color: #137333; } .down { color: #b3261e; }
  table { border-collapse: collapse; width: 100%; } td, th { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid #eef0f3; }
  td.points { text-align: right; font-variant-numeric: tabular-nums; }
  #status, #elo-status, #rules-status { color: #5b6475; }
  .rule-NEVER, .rule-MUST { font-weight: 600; }
  .tier-HIGH { color: #137333; } .tier-VERY_LOW { color: #b3261e; }
  #elo-top h3 { font-size: .9rem; margin: .75rem 0 .25rem; }
</style>
</head>
<body>
<h1>Self-improve: reward ledger</h1>
<section class="widget" id="score" aria-label="Score">
  <div class="figure"><span class="label">Total score</span><span class="value" id="total">–</span></div>
  <div class="figure"><span class="label">Rewards</span><span class="value up" id="rewards">–</span></div>
  <div class="figure"><span class="label">Penalties</span><span class="value down" id="penalties">–</span></div>
  <div class="figure"><span class="label">Learning efficiency</span><span class="value" id="efficiency">–</span></div>
  <div class="figure"><span class="label">Session</span><span class="value" id="session">–</span> <span id="trend"></span></div>
</section>
<section><h2>Score over time</h2><svg id="chart" viewBox="0 0 600 160" width="100%" height="160" role="img" aria-label="Running total by transaction"></svg></section>
<section><h2>By category</h2><table><thead><tr><th>Category</th><th>Kind</th><th>Points</th></tr></thead><tbody id="categories"></tbody></table></section>
<section id="elo" aria-label="ELO"><h2>ELO distribution</h2>
  <div class="widget">
    <div class="figure"><span class="label">HIGH</span><span class="value tier-HIGH" id="elo-tier-HIGH">–</span></div>
    <div class="figure"><span class="label">MEDIUM</span><span class="value" id="elo-tier-MEDIUM">–</span></div>
    <div class="figure"><span class="label">LOW</span><span class="value" id="elo-tier-LOW">–</span></div>
    <div class="figure"><span class="label">VERY LOW</span><span class="value tier-VERY_LOW" id="elo-tier-VERY_LOW">–</span></div>
  </div>
  <svg id="elo-histogram" viewBox="0 0 600 180" width="100%" height="180" role="img" aria-label="Items per rating bucket"></svg>
  <div id="elo-top"></div>
  <p id="elo-status">Loading…</p>
</section>
<section id="rules" aria-label="Top rules"><h2>Top rules</h2>
  <table><thead><tr><th>Rule</th><th>Type</th><th>Confidence</th><th>Text</th></tr></thead><tbody id="rules-top"></tbody></table>
  <p id="rules-status">Loading…</p>
</section>
<p id="status">Loading…</p>
<script>
(function () {
  var REFRESH_MS = ${DASHBOARD_REFRESH_MS};
  function url(path, params) {
    var u = new URL(path, window.location.href);
    new URLSearchParams(window.location.search).forEach(function (v, k) { u.searchParams.set(k, v); });
    Object.keys(params || {}).forEach(function (k) { u.searchParams.set(k, params[k]); });
    return u.toString();
  }
  function get(path, params) {
    return fetch(url(path, params)).then(function (r) {
      if (!r.ok) throw new Error(path + ' answered ' + r.status);
      return r.json();
    });
  }
  function set(id, text) { document.getElementById(id).textContent = text; }
  function signed(n) { return (n > 0 ? '+' : '') + n; }
  function chart(transactions) {
    var svg = document.getElementById('chart');
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var points = transactions.slice().reverse().map(function (t) { return t.running_total; });
    if (points.length === 0) return;
    var min = Math.min.apply(null, points.concat([0])), max = Math.max.apply(null, points.concat([0]));
    var span = max - min || 1, step = points.length > 1 ? 600 / (points.length - 1) : 0;
    var d = points.map(function (p, i) { return (i === 0 ? 'M' : 'L') + (i * step).toFixed(1) + ' ' + (150 - ((p - min) / span) * 140).toFixed(1); }).join(' ');
    var path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
    path.setAttribute('d', d); path.setAttribute('fill', 'none'); path.setAttribute('stroke', '#3366cc'); path.setAttribute('stroke-width', '2');
    svg.appendChild(path);
  }
  function categories(score) {
    var body = document.getElementById('categories');
    while (body.firstChild) body.removeChild(body.firstChild);
    [['reward', score.rewards.by_category], ['penalty', score.penalties.by_category]].forEach(function (pair) {
      Object.keys(pair[1]).forEach(function (name) {
        var row = document.createElement('tr');
        [name, pair[0], signed(pair[1][name])].forEach(function (text, i) {
          var cell = document.createElement('td'); cell.textContent = text; if (i === 2) cell.className = 'points'; row.appendChild(cell);
        });
        body.appendChild(row);
      });
    });
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }
  function svgNode(name, attrs, text) {
    var node = document.createElementNS('http://www.w3.org/2000/svg', name);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function histogram(buckets) {
    var svg = clear(document.getElementById('elo-histogram'));
    if (buckets.length === 0) return;
    var most = Math.max.apply(null, buckets.map(function (b) { return b.count; }));
    var slot = 600 / buckets.length;
    buckets.forEach(function (b, i) {
      var h = (b.count / most) * 140;
      svg.appendChild(svgNode('rect', { x: (i * slot + 2).toFixed(1), y: (150 - h).toFixed(1), width: Math.max(1, slot - 4).toFixed(1), height: h.toFixed(1), fill: '#3366cc' }, undefined))
        .appendChild(svgNode('title', {}, b.from + '–' + b.to + ': ' + b.count));
      svg.appendChild(svgNode('text', { x: (i * slot + slot / 2).toFixed(1), y: '168', 'text-anchor': 'middle', 'font-size': '11' }, String(b.from)));
      svg.appendChild(svgNode('text', { x: (i * slot + slot / 2).toFixed(1), y: (146 - h).toFixed(1), 'text-anchor': 'middle', 'font-size': '11' }, String(b.count)));
    });
  }
  function topItems(top) {
    var box = clear(document.getElementById('elo-top'));
    Object.keys(top).forEach(function (kind) {
      var title = document.createElement('h3'); title.textContent = 'Top ' + kind; box.appendChild(title);
      var table = document.createElement('table'), body = document.createElement('tbody');
      top[kind].forEach(function (item) {
        var row = document.createElement('tr');
        [item.elo.toFixed(1), item.tier, item.title ? item.title + ' (' + item.id + ')' : item.id].forEach(function (text, i) {
          var cell = document.createElement('td'); cell.textContent = text;
          if (i === 0) cell.className = 'points'; if (i === 1) cell.className = 'tier-' + item.tier;
          row.appendChild(cell);
        });
        body.appendChild(row);
      });
      table.appendChild(body); box.appendChild(table);
    });
  }
  function elo() {
    get('elo', { k: '${DASHBOARD_ELO_TOP_K}' }).then(function (report) {
      ['HIGH', 'MEDIUM', 'LOW', 'VERY_LOW'].forEach(function (t) { set('elo-tier-' + t, String(report.distribution.overall.tiers[t])); });
      histogram(report.distribution.overall.histogram);
      topItems(report.top);
      set('elo-status', report.distribution.overall.count + ' rated items · ' + report.bucket_width + '-point buckets, empty ones not shown');
    }).catch(function (e) { set('elo-status', 'ELO not available: ' + e.message); });
  }
  var TYPE_ORDER = { NEVER: 0, MUST: 1, CHECK: 2, PREFER: 3 };
  function rules() {
    get('rules', { status: 'active' }).then(function (listing) {
      var body = clear(document.getElementById('rules-top'));
      var top = listing.rules.filter(function (r) { return !r.review_flagged; }).sort(function (a, b) {
        return TYPE_ORDER[a.type] - TYPE_ORDER[b.type] || b.confidence_now - a.confidence_now || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
      }).slice(0, ${DASHBOARD_TOP_RULES});
      top.forEach(function (r) {
        var row = document.createElement('tr');
        [r.id, r.type, r.confidence_now.toFixed(2), r.rule].forEach(function (text, i) {
          var cell = document.createElement('td'); cell.textContent = text;
          if (i === 1) cell.className = 'rule-' + r.type; if (i === 2) cell.className = 'points';
          row.appendChild(cell);
        });
        body.appendChild(row);
      });
      set('rules-status', listing.count + ' active rules · ' + listing.flagged + ' flagged for review · ' + listing.conflicts.length + ' conflicts');
    }).catch(function (e) { set('rules-status', 'Rules not available: ' + e.message); });
  }
  function refresh() {
    elo();
    rules();
    Promise.all([get('ledger/score'), get('ledger/metrics'), get('ledger/history', { limit: '1000' })]).then(function (r) {
      var score = r[0], metrics = r[1], history = r[2].transactions;
      set('total', String(score.total_score));
      set('rewards', signed(score.rewards.total_earned));
      set('penalties', String(score.penalties.total_incurred));
      set('efficiency', metrics.learning_efficiency + '%');
      set('session', signed(score.session_score));
      var trend = document.getElementById('trend');
      trend.textContent = score.session_score > 0 ? '▲ up this session' : score.session_score < 0 ? '▼ down this session' : '– flat this session';
      trend.className = score.session_score > 0 ? 'up' : score.session_score < 0 ? 'down' : '';
      chart(history);
      categories(score);
      set('status', 'Updated ' + new Date().toLocaleTimeString() + ' · ' + metrics.actions_total + ' transactions · checksum ' + (score.checksum.is_valid ? 'valid' : 'INVALID'));
    }).catch(function (e) { set('status', 'Could not load the ledger: ' + e.message); });
  }
  refresh();
  setInterval(refresh, REFRESH_MS);
})();
</script>
</body>
</html>
`;

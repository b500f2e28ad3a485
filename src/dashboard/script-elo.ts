/** Top items per kind the ELO panel shows. */
export const DASHBOARD_ELO_TOP_K = 5;
/** Characters of a lesson's text shown as its title in the ELO panel (the whole text is its tooltip). */
export const DASHBOARD_TITLE_CHARS = 140;

/**
 * The ELO panel (seed 002 Phase 5): tier counts, a histogram of the non-empty buckets (the tallest
 * bar leaves room above it for its count, the bucket starts are labelled below), and the top items
 * per kind with their titles — a lesson's title is its text, fetched from the lessons route by id;
 * a rule's is its type and text, from the rules route.
 */
export const SCRIPT_ELO = `
  var UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  function eloHistogram(buckets, width) {
    var svg = clear(el('elo-histogram'));
    if (buckets.length === 0) return;
    var left = 10, right = 750, baseline = 165, tallest = 130;
    var most = Math.max.apply(null, buckets.map(function (b) { return b.count; }));
    var slot = (right - left) / buckets.length, bar = Math.max(1, Math.min(slot - 4, 90));
    svg.appendChild(svgNode('line', { x1: left, x2: right, y1: baseline, y2: baseline, class: 'axis' }));
    buckets.forEach(function (b, i) {
      var h = (b.count / most) * tallest, x = left + i * slot;
      svg.appendChild(svgNode('rect', { x: (x + (slot - bar) / 2).toFixed(1), y: (baseline - h).toFixed(1), width: bar.toFixed(1), height: h.toFixed(1), fill: '#3366cc' }))
        .appendChild(svgNode('title', {}, b.from + '–' + b.to + ': ' + b.count));
      svg.appendChild(svgNode('text', { x: (x + slot / 2).toFixed(1), y: (baseline - h - 6).toFixed(1), 'text-anchor': 'middle' }, String(b.count)));
      svg.appendChild(svgNode('text', { x: (x + slot / 2).toFixed(1), y: baseline + 15, 'text-anchor': 'middle' }, String(b.from)));
    });
    svg.appendChild(svgNode('text', { x: (left + right) / 2, y: '196', 'text-anchor': 'middle' }, 'ELO rating (start of each ' + width + '-point bucket) · bar height: items'));
  }
  function shortened(text) { return text.length > ${DASHBOARD_TITLE_CHARS} ? text.slice(0, ${DASHBOARD_TITLE_CHARS - 1}) + '…' : text; }
  function eloTitleCell(item, text) {
    if (text !== undefined) return cell(shortened(text), undefined, text + ' (' + item.id + ')');
    return cell(item.title ? item.title + ' (' + item.id + ')' : item.id);
  }
  function eloTop(top, texts) {
    var box = clear(el('elo-top'));
    Object.keys(top).forEach(function (kind) {
      var title = document.createElement('h3'); title.textContent = 'Top ' + kind; box.appendChild(title);
      var table = document.createElement('table'), body = document.createElement('tbody');
      body.id = 'elo-top-' + kind;
      table.appendChild(body); box.appendChild(table);
      fillRows(body.id, top[kind], function (item) {
        return [cell(item.elo.toFixed(1), 'points'), cell(item.tier, 'tier-' + item.tier), eloTitleCell(item, (texts[kind] || {})[item.id])];
      });
    });
  }
  /** The texts of the lessons among the top items, by id (looked up by id); a note when they cannot be read. */
  function lessonTexts(top) {
    var ids = (top.lesson || []).map(function (i) { return i.id; }).filter(function (id) { return UUID.test(id); });
    if (ids.length === 0) return Promise.resolve({ texts: {}, note: '' });
    return get('lessons', { ids: ids.join(','), limit: String(ids.length) }).then(function (page) {
      var texts = {};
      page.lessons.forEach(function (l) { texts[l.id] = l.text; });
      return { texts: texts, note: '' };
    }, function (e) { return { texts: {}, note: ' · lesson texts not available: ' + e.message }; });
  }
  /** The texts of the rules among the top items, by id (from the list of every rule); a note when they cannot be read. */
  function ruleTexts(top) {
    if (!top.rule || top.rule.length === 0) return Promise.resolve({ texts: {}, note: '' });
    return get('rules', { status: 'all' }).then(function (listing) {
      var texts = {};
      listing.rules.forEach(function (r) { texts[r.id] = r.type + ': ' + r.rule; });
      return { texts: texts, note: '' };
    }, function (e) { return { texts: {}, note: ' · rule texts not available: ' + e.message }; });
  }
  function elo() {
    get('elo', { k: '${DASHBOARD_ELO_TOP_K}' }).then(function (report) {
      ['HIGH', 'MEDIUM', 'LOW', 'VERY_LOW'].forEach(function (t) { set('elo-tier-' + t, String(report.distribution.overall.tiers[t])); });
      eloHistogram(report.distribution.overall.histogram, report.bucket_width);
      return Promise.all([lessonTexts(report.top), ruleTexts(report.top)]).then(function (found) {
        eloTop(report.top, { lesson: found[0].texts, rule: found[1].texts });
        set('elo-status', report.distribution.overall.count + ' rated items · ' + report.bucket_width + '-point buckets, empty ones not shown' + found[0].note + found[1].note);
      });
    }).catch(function (e) { set('elo-status', 'ELO not available: ' + e.message); });
  }
`;

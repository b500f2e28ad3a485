/** Weeks the triage panel shows (the route's own bound is 52). */
export const DASHBOARD_WEEKS = 12;

/**
 * The triage-quality panel: weekly false-positive rate, precision@k and calibration error (ECE)
 * from GET metrics/weekly, as three lines on a 0–100% axis with one labelled tick per week (a week
 * without labelled findings has no point and breaks its line), and the same figures as a table,
 * newest week first.
 */
export const SCRIPT_TRIAGE = `
  var TRIAGE_SERIES = [
    { field: 'false_positive_rate', name: 'False-positive rate', color: '#b3261e' },
    { field: 'precision_at_k', name: 'Precision@k', color: '#137333' },
    { field: 'calibration_error', name: 'Calibration error', color: '#3366cc' },
  ];
  function triageChart(series) {
    var svg = clear(el('triage-chart'));
    var left = 50, right = 740, top = 14, bottom = 200;
    var y = function (v) { return bottom - v * (bottom - top); };
    var step = series.length > 1 ? (right - left) / (series.length - 1) : 0;
    var x = function (i) { return series.length > 1 ? left + i * step : (left + right) / 2; };
    [0, 0.25, 0.5, 0.75, 1].forEach(function (v) {
      svg.appendChild(svgNode('line', { x1: left, x2: right, y1: y(v), y2: y(v), class: v === 0 ? 'axis' : 'grid' }));
      svg.appendChild(svgNode('text', { x: left - 8, y: y(v) + 4, 'text-anchor': 'end' }, (v * 100) + '%'));
    });
    series.forEach(function (w, i) {
      svg.appendChild(svgNode('text', { x: x(i).toFixed(1), y: bottom + 18, 'text-anchor': 'middle', class: 'week-label' }, w.week_start.slice(5, 10)));
    });
    svg.appendChild(svgNode('text', { x: (left + right) / 2, y: bottom + 42, 'text-anchor': 'middle' }, 'week starting (Monday, UTC, month-day)'));
    var points = [];
    TRIAGE_SERIES.forEach(function (s) {
      var d = '', open = false;
      series.forEach(function (w, i) {
        var v = w[s.field];
        if (v === null) { open = false; return; }
        d += (open ? ' L' : ' M') + x(i).toFixed(1) + ' ' + y(v).toFixed(1);
        open = true;
        var point = svgNode('circle', { cx: x(i).toFixed(1), cy: y(v).toFixed(1), r: '4', fill: s.color, class: 'point' });
        point.appendChild(svgNode('title', {}, s.name + ', week of ' + day(w.week_start) + ': ' + percent(v) + ' (' + w.findings + ' findings)'));
        points.push(point);
      });
      if (d) svg.appendChild(svgNode('path', { d: d.trim(), fill: 'none', stroke: s.color, 'stroke-width': '2' }));
    });
    points.forEach(function (p) { svg.appendChild(p); });
  }
  function triage() {
    get('metrics/weekly', { weeks: '${DASHBOARD_WEEKS}' }).then(function (report) {
      triageChart(report.series);
      var labelled = report.series.filter(function (w) { return w.findings > 0; }).reverse();
      fillRows('triage-weeks', labelled, function (w) {
        return [cell(day(w.week_start), 'nowrap'), cell(String(w.findings), 'points'), cell(percent(w.false_positive_rate), 'points'),
          cell(percent(w.precision_at_k), 'points', w.precision_k === 0 ? 'no finding that week had a confidence' : 'of the ' + w.precision_k + ' most confident findings'), cell(percent(w.calibration_error), 'points')];
      });
      set('triage-status', report.weeks + ' weeks to ' + day(report.as_of) + ' · precision@k with k = ' + report.k + ' · ' + labelled.length + ' weeks with labelled findings; the others have no points');
    }).catch(function (e) { set('triage-status', 'Triage quality not available: ' + e.message); });
  }
`;

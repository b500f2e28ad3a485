/** Lessons the lessons panel lists (the newest evidence first). */
export const DASHBOARD_SCAN_LESSONS = 20;

/**
 * The lessons panel: the newest lessons with what they say, their scope (project, scanner, model,
 * finding category), category, confidence, sample size n, window, evidence count, last seen and ELO.
 */
export const SCRIPT_SCAN_LESSONS = `
  function lessonCell(l) {
    var td = document.createElement('td');
    td.className = 'lesson-text';
    var text = document.createElement('div'); text.textContent = l.text;
    var scope = document.createElement('div'); scope.className = 'scope';
    scope.textContent = [l.project, l.scanner, l.model, l.finding_category].filter(function (s) { return s; }).join(' · ');
    td.appendChild(text); td.appendChild(scope);
    return td;
  }
  function lessons() {
    get('lessons', { limit: '${DASHBOARD_SCAN_LESSONS}' }).then(function (page) {
      fillRows('lessons-list', page.lessons, function (l) {
        return [
          lessonCell(l), cell(l.category, 'nowrap'), cell(l.confidence.toFixed(2), 'points'), cell(String(l.sample_size), 'points'),
          cell(day(l.window_start) + ' – ' + day(l.window_end), 'nowrap'), cell(String(l.evidence_count), 'points'),
          cell(day(l.last_seen), 'nowrap', l.last_seen), cell(fixed(l.elo, 0), 'points'),
        ];
      });
      set('lessons-status', page.count === 0 ? 'No lessons yet: they are learned from labelled scan outcomes.' : page.count + ' lessons · the ' + page.lessons.length + ' with the newest evidence shown');
    }).catch(function (e) { set('lessons-status', 'Lessons not available: ' + e.message); });
  }
`;

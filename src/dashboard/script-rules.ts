/** Active rules the rules panel shows. */
export const DASHBOARD_TOP_RULES = 10;

/**
 * The rules panel. Candidates (what people taught in conversation or unsigned imports brought)
 * with approve and reject buttons that POST to /rules/:id/approve|reject; when the agent wants a
 * key for that, the answer (401) is shown as such, with what to do: paste the key into the field,
 * which sends it as X-API-KEY from then on. Then the top active rules that are not flagged for
 * review, by type priority (NEVER, MUST, CHECK, PREFER), confidence now (highest first), id; and
 * how many are flagged or in conflict.
 */
export const SCRIPT_RULES = `
  var TYPE_ORDER = { NEVER: 0, MUST: 1, CHECK: 2, PREFER: 3 };
  el('api-key').addEventListener('input', function (e) { apiKey = e.target.value.trim(); });
  function ruleMessage(text, kind) { var m = el('rules-message'); m.textContent = text; m.className = 'message ' + kind; }
  function decide(id, verb) {
    var done = verb === 'approve' ? 'approved' : 'rejected';
    ruleMessage((verb === 'approve' ? 'Approving ' : 'Rejecting ') + id + '…', 'ok');
    post('rules/' + encodeURIComponent(id) + '/' + verb).then(function (r) {
      if (r.ok) {
        ruleMessage(id + ' ' + done + (verb === 'approve' ? ': it is an active rule now.' : ': it will not be used.'), 'ok');
        rules();
        return;
      }
      return answerText(r).then(function (t) {
        ruleMessage(r.status === 401
          ? id + ' was not ' + done + ': this agent needs its API key for that. Paste the key (ELIZA_SERVER_AUTH_TOKEN or SELF_IMPROVE_API_TOKEN) into the API key field above and press the button again. The agent answered 401: ' + t
          : id + ' was not ' + done + ': the agent answered ' + r.status + ': ' + t, 'error');
      });
    }).catch(function (e) { ruleMessage(id + ' was not ' + done + ': ' + e.message, 'error'); });
  }
  function decisionCell(rule) {
    var td = document.createElement('td');
    ['approve', 'reject'].forEach(function (verb) {
      var b = document.createElement('button');
      b.type = 'button'; b.className = verb; b.textContent = verb === 'approve' ? 'Approve' : 'Reject';
      b.setAttribute('data-rule', rule.id);
      b.addEventListener('click', function () { decide(rule.id, verb); });
      td.appendChild(b);
    });
    return td;
  }
  function candidates() {
    get('rules', { status: 'candidate' }).then(function (listing) {
      fillRows('rules-candidates', listing.rules, function (r) { return [cell(r.id), cell(r.type, 'rule-' + r.type), cell(r.category), cell(r.rule), decisionCell(r)]; });
      set('candidates-status', listing.count === 0 ? 'No rules are waiting for approval.' : listing.count + ' waiting for approval: a trusted person approves or rejects them (here, in chat, or with the CLI).');
    }).catch(function (e) { set('candidates-status', 'Candidates not available: ' + e.message); });
  }
  function activeRules() {
    get('rules', { status: 'active' }).then(function (listing) {
      var top = listing.rules.filter(function (r) { return !r.review_flagged; }).sort(function (a, b) {
        return TYPE_ORDER[a.type] - TYPE_ORDER[b.type] || b.confidence_now - a.confidence_now || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
      }).slice(0, ${DASHBOARD_TOP_RULES});
      fillRows('rules-top', top, function (r) { return [cell(r.id), cell(r.type, 'rule-' + r.type), cell(r.confidence_now.toFixed(2), 'points'), cell(r.rule)]; });
      set('rules-status', listing.count + ' active rules · ' + listing.flagged + ' flagged for review · ' + listing.conflicts.length + ' conflicts');
    }).catch(function (e) { set('rules-status', 'Rules not available: ' + e.message); });
  }
  function rules() { candidates(); activeRules(); }
`;

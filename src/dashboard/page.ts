import { PAGE_BODY } from './page-body';
import { PAGE_STYLE } from './page-style';
import { SCRIPT_COMMON } from './script-common';
import { SCRIPT_ELO } from './script-elo';
import { SCRIPT_LEDGER } from './script-ledger';
import { SCRIPT_SCAN_LESSONS } from './script-scan-lessons';
import { SCRIPT_RULES } from './script-rules';
import { SCRIPT_TRAJECTORIES } from './script-trajectories';
import { SCRIPT_TRIAGE } from './script-triage';

export { DASHBOARD_ELO_TOP_K } from './script-elo';
export { DASHBOARD_SCAN_LESSONS } from './script-scan-lessons';
export { DASHBOARD_TOP_RULES } from './script-rules';
export { DASHBOARD_TRAJECTORIES } from './script-trajectories';
export { DASHBOARD_WEEKS } from './script-triage';

export const DASHBOARD_REFRESH_MS = 5_000;

/**
 * The dashboard about learning (GET /self-improve/dashboard, a public panel in the agent's web
 * UI): one self-contained HTML page, no external assets, panels for the lessons, triage quality
 * by week, rules (candidates with approve/reject), trajectories, ELO and the reward ledger
 * (seed 000's dashboard). Each panel reads the plugin's JSON routes relative to the page's address
 * on its own, so one route failing leaves the others standing and its panel says why; all refresh
 * every 5 seconds. Outside text is put on the page as text, never as HTML.
 */
export const DASHBOARD_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Self-improve: what the agent learned</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
${PAGE_BODY}
<script>
(function () {
  'use strict';
${SCRIPT_COMMON}
${SCRIPT_SCAN_LESSONS}
${SCRIPT_TRIAGE}
${SCRIPT_RULES}
${SCRIPT_TRAJECTORIES}
${SCRIPT_ELO}
${SCRIPT_LEDGER}
  function refresh() {
    lessons();
    triage();
    rules();
    trajectories();
    elo();
    ledger();
  }
  refresh();
  setInterval(refresh, ${DASHBOARD_REFRESH_MS});
})();
</script>
</body>
</html>
`;

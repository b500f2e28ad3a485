/**
 * The dashboard's panels, empty: each panel's script fills its tables and charts and says in its
 * status line what it shows or why it could not load.
 */
export const PAGE_BODY = `
<h1>What the agent learned</h1>
<p class="lede">Lessons from labelled scan outcomes, how well its triage does week by week, the rules it follows and those waiting for approval, its scored work, ELO ratings and the reward ledger.</p>

<section id="lessons" aria-label="Lessons"><h2>Lessons</h2>
  <table><thead><tr><th>Lesson</th><th>Category</th><th class="num">Confidence</th><th class="num">n</th><th>Window</th><th class="num">Evidence</th><th>Last seen</th><th class="num">ELO</th></tr></thead><tbody id="lessons-list"></tbody></table>
  <p class="status" id="lessons-status">Loading…</p>
</section>

<section id="triage" aria-label="Triage quality by week"><h2>Triage quality by week</h2>
  <div class="legend">
    <span><span class="swatch" style="background:#b3261e"></span>False-positive rate</span>
    <span><span class="swatch" style="background:#137333"></span>Precision@k</span>
    <span><span class="swatch" style="background:#3366cc"></span>Calibration error (ECE)</span>
  </div>
  <svg id="triage-chart" viewBox="0 0 760 250" width="100%" role="img" aria-label="Weekly false-positive rate, precision at k and calibration error"></svg>
  <table><thead><tr><th>Week of</th><th class="num">Findings</th><th class="num">False-positive rate</th><th class="num">Precision@k</th><th class="num">Calibration error</th></tr></thead><tbody id="triage-weeks"></tbody></table>
  <p class="status" id="triage-status">Loading…</p>
</section>

<section id="rules" aria-label="Rules"><h2>Rules</h2>
  <h3>Waiting for approval</h3>
  <div class="key-row">
    <label for="api-key">API key (only when the agent asks for one; kept in this page, never stored)</label>
    <input id="api-key" type="password" autocomplete="off" spellcheck="false">
  </div>
  <table><thead><tr><th>Rule</th><th>Type</th><th>Category</th><th>Text</th><th>Decision</th></tr></thead><tbody id="rules-candidates"></tbody></table>
  <p class="message" id="rules-message" role="status" aria-live="polite"></p>
  <p class="status" id="candidates-status">Loading…</p>
  <h3>Top active rules</h3>
  <table><thead><tr><th>Rule</th><th>Type</th><th class="num">Confidence</th><th>Text</th></tr></thead><tbody id="rules-top"></tbody></table>
  <p class="status" id="rules-status">Loading…</p>
</section>

<section id="trajectories" aria-label="Trajectories"><h2>Trajectories</h2>
  <table><thead><tr><th>Run</th><th>Source</th><th>Ended</th><th class="num">Quality</th><th class="num">Reward (sats)</th><th class="num">Paid (sats)</th><th>Accepted</th></tr></thead><tbody id="trajectories-list"></tbody></table>
  <p class="status" id="trajectories-status">Loading…</p>
</section>

<section id="elo" aria-label="ELO"><h2>ELO ratings</h2>
  <div class="widget">
    <div class="figure"><span class="label">HIGH</span><span class="value tier-HIGH" id="elo-tier-HIGH">–</span></div>
    <div class="figure"><span class="label">MEDIUM</span><span class="value" id="elo-tier-MEDIUM">–</span></div>
    <div class="figure"><span class="label">LOW</span><span class="value" id="elo-tier-LOW">–</span></div>
    <div class="figure"><span class="label">VERY LOW</span><span class="value tier-VERY_LOW" id="elo-tier-VERY_LOW">–</span></div>
  </div>
  <svg id="elo-histogram" viewBox="0 0 760 200" width="100%" role="img" aria-label="Items per rating bucket"></svg>
  <div id="elo-top"></div>
  <p class="status" id="elo-status">Loading…</p>
</section>

<section id="ledger" aria-label="Reward ledger"><h2>Reward ledger</h2>
  <div class="widget" id="score" aria-label="Score">
    <div class="figure"><span class="label">Total score</span><span class="value" id="total">–</span></div>
    <div class="figure"><span class="label">Rewards</span><span class="value up" id="rewards">–</span></div>
    <div class="figure"><span class="label">Penalties</span><span class="value down" id="penalties">–</span></div>
    <div class="figure"><span class="label">Learning efficiency</span><span class="value" id="efficiency">–</span></div>
    <div class="figure"><span class="label">Session</span><span class="value" id="session">–</span> <span id="trend"></span></div>
  </div>
  <h3>Running total</h3>
  <svg id="chart" viewBox="0 0 760 180" width="100%" role="img" aria-label="Running total by transaction"></svg>
  <h3>By category</h3>
  <table><thead><tr><th>Category</th><th>Kind</th><th class="num">Points</th></tr></thead><tbody id="categories"></tbody></table>
  <p class="status" id="status">Loading…</p>
</section>
`;

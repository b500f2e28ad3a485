/**
 * Helpers every panel's script uses. Requests go to the plugin's routes relative to the page's own
 * address, carrying the page's query string (e.g. the agent id) and, once the user has typed one,
 * the API key as X-API-KEY: the key lives in one variable of this page, never in storage. Outside
 * data only ever reaches the page as text (`textContent`, SVG text nodes).
 */
export const SCRIPT_COMMON = `
  var apiKey = '';
  function el(id) { return document.getElementById(id); }
  function set(id, text) { el(id).textContent = text; }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }
  function url(path, params) {
    var u = new URL(path, window.location.href);
    new URLSearchParams(window.location.search).forEach(function (v, k) { u.searchParams.set(k, v); });
    Object.keys(params || {}).forEach(function (k) { u.searchParams.set(k, params[k]); });
    return u.toString();
  }
  function keyHeaders() { return apiKey ? { 'X-API-KEY': apiKey } : {}; }
  /** The error a route answered with: its JSON error field, or its text. */
  function answerText(r) {
    var json = (r.headers.get('content-type') || '').indexOf('json') >= 0;
    return (json ? r.json().then(function (b) { return b && b.error ? String(b.error) : JSON.stringify(b); }) : r.text()).then(function (t) { return t.slice(0, 300); });
  }
  function get(path, params) {
    return fetch(url(path, params), { headers: keyHeaders() }).then(function (r) {
      if (r.ok) return r.json();
      if (r.status === 401) return answerText(r).then(function (t) { throw new Error(path + ' answered 401: this agent needs a key to read it; paste it into the API key field of the rules panel (' + t + ')'); });
      throw new Error(path + ' answered ' + r.status);
    });
  }
  function post(path) { return fetch(url(path), { method: 'POST', headers: keyHeaders() }); }
  function signed(n) { return (n > 0 ? '+' : '') + n; }
  function fixed(n, digits) { return n === null || n === undefined ? '–' : n.toFixed(digits); }
  function percent(n) { return n === null || n === undefined ? '–' : (n * 100).toFixed(0) + '%'; }
  function day(iso) { return iso ? String(iso).slice(0, 10) : '–'; }
  /** A table cell: its text, and optionally its class and tooltip. */
  function cell(text, className, tooltip) {
    var td = document.createElement('td');
    td.textContent = text;
    if (className) td.className = className;
    if (tooltip) td.title = tooltip;
    return td;
  }
  /** Fills a tbody: one row per item, its cells (nodes) from \`cellsOf\`. */
  function fillRows(bodyId, items, cellsOf) {
    var body = clear(el(bodyId));
    items.forEach(function (item) {
      var row = document.createElement('tr');
      cellsOf(item).forEach(function (c) { row.appendChild(c); });
      body.appendChild(row);
    });
  }
  function svgNode(name, attrs, text) {
    var node = document.createElementNS('http://www.w3.org/2000/svg', name);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }
`;

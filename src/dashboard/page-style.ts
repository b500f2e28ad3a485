/** The dashboard's stylesheet: one column of panels, tables that wrap long text, charts that scale. */
export const PAGE_STYLE = `
  body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem auto; max-width: 1200px; padding: 0 1rem; color: #1d2330; background: #f6f7f9; }
  h1 { font-size: 1.3rem; margin: 0 0 .25rem; }
  .lede { color: #5b6475; margin: 0 0 1rem; }
  h2 { font-size: 1.05rem; margin: 0 0 .5rem; }
  h3 { font-size: .9rem; margin: .75rem 0 .25rem; }
  section { background: #fff; border: 1px solid #dde1e7; border-radius: 8px; padding: 1rem; margin-bottom: 1rem; overflow-x: auto; }
  .widget { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap: .75rem; }
  .figure .label { display: block; color: #5b6475; font-size: .8rem; }
  .figure .value { font-size: 1.5rem; font-weight: 600; }
  .up, .yes { color: #137333; } .down, .no { color: #b3261e; }
  table { border-collapse: collapse; width: 100%; }
  td, th { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #eef0f3; vertical-align: top; }
  th { font-size: .8rem; color: #5b6475; font-weight: 600; white-space: nowrap; }
  th.num { text-align: right; }
  td.points { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
  td.nowrap { white-space: nowrap; }
  td.lesson-text { min-width: 22rem; }
  #elo-top td:not(:last-child) { width: 1%; white-space: nowrap; }
  .scope { color: #5b6475; font-size: .8rem; }
  .status { color: #5b6475; margin: .5rem 0 0; }
  .rule-NEVER, .rule-MUST { font-weight: 600; }
  .tier-HIGH { color: #137333; } .tier-VERY_LOW { color: #b3261e; }
  .legend { display: flex; gap: 1.25rem; flex-wrap: wrap; margin: .25rem 0; font-size: .85rem; }
  .swatch { display: inline-block; width: 1.5rem; height: 3px; vertical-align: middle; margin-right: .35rem; }
  .key-row { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; margin: .25rem 0 .5rem; }
  .key-row input { font: inherit; padding: .2rem .4rem; min-width: 18rem; }
  button { font: inherit; padding: .15rem .6rem; margin-right: .25rem; border-radius: 4px; border: 1px solid #b8bfcc; background: #f6f7f9; cursor: pointer; }
  button.approve { border-color: #137333; color: #137333; } button.reject { border-color: #b3261e; color: #b3261e; }
  .message { margin: .5rem 0 0; padding: .4rem .6rem; border-radius: 4px; }
  .message.ok { background: #e6f4ea; color: #137333; } .message.error { background: #fce8e6; color: #b3261e; font-weight: 600; }
  .message:empty { display: none; }
  svg text { fill: #1d2330; font-size: 11px; }
  svg .axis { stroke: #9aa3b2; stroke-width: 1; } svg .grid { stroke: #eef0f3; stroke-width: 1; }
`;

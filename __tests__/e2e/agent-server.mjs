// The real ElizaOS server as `elizaos start` runs it (run by Bun or Node): @elizaos/server's AgentServer with
// one character whose plugins are resolved by name (so "plugin-self-improve" is whatever is installed
// in node_modules: the packed build). Prints one line `E2E_READY {json}` on stdout when the agent is
// up; stops cleanly on SIGTERM. Configured by environment: E2E_CHARACTER (path), E2E_DATA_DIR, POSTGRES_URL, SERVER_PORT,
// and E2E_EARLY_REQUESTS (requests sent while the agent's services are starting; `E2E_EARLY {json}` before E2E_READY).
import { readFileSync } from 'node:fs';
import { AgentServer } from '@elizaos/server';

const character = JSON.parse(readFileSync(process.env.E2E_CHARACTER, 'utf8'));
const server = new AgentServer();
const early = process.env.E2E_EARLY_REQUESTS ? requestsWhileStarting(JSON.parse(process.env.E2E_EARLY_REQUESTS)) : null;
// As `elizaos start` does: POSTGRES_URL, when set, is the server's database and its agents'.
await server.start({ port: Number(process.env.SERVER_PORT), dataDir: process.env.E2E_DATA_DIR, postgresUrl: process.env.POSTGRES_URL || undefined, agents: [{ character }] });
const [agent] = server.getAllAgents();
const plugins = agent.plugins.map((p) => p.name);
if (early) process.stdout.write(`E2E_EARLY ${JSON.stringify(await early)}\n`);
process.stdout.write(`E2E_READY ${JSON.stringify({ agentId: agent.agentId, port: Number(process.env.SERVER_PORT), plugins })}\n`);

/**
 * E2E_EARLY_REQUESTS ([{ method, path, contentType?, body? }], paths at the server root): sent all
 * at once as soon as the agent's runtime serves the plugin's routes while its ledger service has
 * not started (the runtime starts services after initialize; the server routes to the runtime from
 * when its plugins are registered). Resolves to the services started when they were sent and each
 * answer, or `{ missed: true }` when that moment was not seen within two minutes.
 */
async function requestsWhileStarting(requests) {
  const services = ['scan-outcomes', 'trajectories', 'reward-ledger', 'elo-book', 'rule-book'];
  const deadline = Date.now() + 120_000;
  for (;;) {
    const runtime = server.elizaOS?.getAgents?.()[0];
    if (runtime?.routes?.some((r) => r.path === '/self-improve/ledger/score') && !runtime.hasService('reward-ledger')) {
      const startedWhenSent = services.filter((type) => runtime.hasService(type));
      const origin = `http://127.0.0.1:${process.env.SERVER_PORT}`;
      const answers = await Promise.all(
        requests.map(async (r) => {
          const response = await fetch(`${origin}${r.path}`, { method: r.method, headers: r.contentType ? { 'content-type': r.contentType } : {}, body: r.body });
          const text = await response.text();
          return { path: r.path, status: response.status, text };
        }),
      );
      return { startedWhenSent, answers };
    }
    if (Date.now() > deadline) return { missed: true };
    // Every turn of the event loop: PGlite's statements resolve through promise jobs alone, and the
    // services' starts take one turn per step (`startTurn`), so a timer can miss the window.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

let stopping = false;
process.on('SIGTERM', () => {
  if (stopping) return;
  stopping = true;
  server
    .stop()
    .then(() => process.exit(0))
    .catch((error) => {
      process.stderr.write(`stop failed: ${error}\n`);
      process.exit(1);
    });
});

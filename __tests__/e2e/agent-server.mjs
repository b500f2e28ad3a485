// The real ElizaOS server as `elizaos start` runs it, under Node: @elizaos/server's AgentServer with
// one character whose plugins are resolved by name (so "plugin-self-improve" is whatever is installed
// in node_modules: the packed build). Prints one line `E2E_READY {json}` on stdout when the agent is
// up; stops cleanly on SIGTERM. Configured by environment: E2E_CHARACTER (path), E2E_DATA_DIR, SERVER_PORT.
import { readFileSync } from 'node:fs';
import { AgentServer } from '@elizaos/server';

const character = JSON.parse(readFileSync(process.env.E2E_CHARACTER, 'utf8'));
const server = new AgentServer();
await server.start({ port: Number(process.env.SERVER_PORT), dataDir: process.env.E2E_DATA_DIR, agents: [{ character }] });
const [agent] = server.getAllAgents();
const plugins = agent.plugins.map((p) => p.name);
process.stdout.write(`E2E_READY ${JSON.stringify({ agentId: agent.agentId, port: Number(process.env.SERVER_PORT), plugins })}\n`);

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

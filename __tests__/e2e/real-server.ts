import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { extractPacked, packPackage, removePackedTarball } from '../helpers/packed-package';
import { TestModelServer } from './test-model-server';

const REPO = path.resolve(import.meta.dir, '..', '..');
const READY = 'E2E_READY ';

export interface RealServerOptions {
  /** Character settings besides the model's (they win over the environment, as in any agent). */
  settings?: Record<string, string>;
  /** Extra environment of the server process (e.g. ELIZA_SERVER_AUTH_TOKEN). */
  env?: Record<string, string>;
  /** How long to wait for the agent to be up before giving up with the server's output (default 180 s). */
  readyTimeoutMs?: number;
  /**
   * The engine the server process runs on. `bun` by default: `elizaos start` runs on Bun (the
   * CLI's bin starts with `#!/usr/bin/env bun` and runs `AgentServer` in its own process). `node`
   * for agents started from a script of their own under Node, which the package also supports.
   */
  engine?: ServerEngine;
}

export type ServerEngine = 'bun' | 'node';

/** The command that runs a script on `engine`: this test process's own Bun for `bun`. */
function engineCommand(engine: ServerEngine): string {
  if (engine === 'node') return 'node';
  if (!process.versions.bun) throw new Error('the e2e suite runs under `bun test`: no Bun to start the server with');
  return process.execPath;
}

export interface RealServer {
  /** http://127.0.0.1:PORT */
  origin: string;
  agentId: string;
  /** Plugin names the agent runs, as the server loaded them. */
  plugins: string[];
  model: TestModelServer;
  /** URL of a plugin route under the agent: /api/agents/<id>/plugins/self-improve/<route>. */
  agentUrl(route: string): string;
  /** The same route at the server root, where the 1.7.2 server also serves it. */
  rootUrl(route: string): string;
  /** Everything the server process printed so far (stdout and stderr). */
  output(): string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

let installed = false;

/** The packed build installed where a project's `node_modules` would have it, once per process. */
function installPackedPlugin(): void {
  if (installed) return;
  const { tarball } = packPackage();
  extractPacked(tarball, path.join(REPO, 'node_modules'));
  removePackedTarball();
  installed = true;
}

function characterFile(dir: string, settings: Record<string, string>): string {
  const example = JSON.parse(readFileSync(path.join(REPO, 'examples', 'character.json'), 'utf8')) as Record<string, unknown>;
  const character = {
    ...example,
    plugins: ['@elizaos/plugin-sql', '@elizaos/plugin-openai', '@elizaos/plugin-bootstrap', 'plugin-self-improve'],
    settings: { ...(example.settings as Record<string, string>), ...settings },
  };
  const file = path.join(dir, 'character.json');
  writeFileSync(file, JSON.stringify(character));
  return file;
}

function waitForReady(child: ChildProcess, output: () => string, timeoutMs: number): Promise<{ agentId: string; plugins: string[] }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server not ready after ${timeoutMs} ms:\n${output().slice(-4000)}`)), timeoutMs);
    const check = () => {
      const line = output()
        .split('\n')
        .find((l) => l.startsWith(READY));
      if (!line) return;
      clearTimeout(timer);
      resolve(JSON.parse(line.slice(READY.length)) as { agentId: string; plugins: string[] });
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before it was ready:\n${output().slice(-4000)}`));
    });
  });
}

/**
 * Starts the real ElizaOS 1.7.2 server (@elizaos/server's AgentServer in a child process, under Bun
 * as `elizaos start` runs it, or under Node: `options.engine`) with the example character:
 * plugin-sql on a fresh PGlite directory, plugin-openai pointed at a loopback test model that
 * records every prompt, plugin-bootstrap, and the packed build of this plugin resolved by name
 * from node_modules.
 */
export async function startRealServer(options: RealServerOptions = {}): Promise<RealServer> {
  installPackedPlugin();
  const model = new TestModelServer();
  const modelUrl = await model.start();
  const dir = mkdtempSync(path.join(tmpdir(), 'self-improve-e2e-'));
  const port = await freePort();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'warn',
    SERVER_PORT: String(port),
    SERVER_HOST: '127.0.0.1',
    E2E_CHARACTER: characterFile(dir, options.settings ?? {}),
    E2E_DATA_DIR: path.join(dir, 'pglite'),
    PGLITE_DATA_DIR: path.join(dir, 'pglite'),
    ELIZA_UI_ENABLE: 'false',
    // Errors are reported to Sentry unless SENTRY_DSN names another place: keep them on this machine.
    SENTRY_DSN: 'http://public@127.0.0.1:9/0',
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: modelUrl,
    OPENAI_EMBEDDING_DIMENSIONS: '384',
    EMBEDDING_DIMENSION: '384',
    OPENAI_SMALL_MODEL: 'test-small',
    OPENAI_LARGE_MODEL: 'test-large',
    ...(options.env ?? {}),
  };
  const engine = options.engine ?? 'bun';
  const child = spawn(engineCommand(engine), [path.join(import.meta.dir, 'agent-server.mjs')], {
    cwd: dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    printed += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    printed += chunk.toString('utf8');
  });
  const output = () => printed;
  let ready: { agentId: string; plugins: string[] };
  try {
    ready = await waitForReady(child, output, options.readyTimeoutMs ?? 180_000);
  } catch (error) {
    child.kill('SIGKILL');
    await model.stop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    agentId: ready.agentId,
    plugins: ready.plugins,
    model,
    agentUrl: (route) => `${origin}/api/agents/${ready.agentId}/plugins/self-improve${route}`,
    rootUrl: (route) => `${origin}/self-improve${route}`,
    output,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }
      await model.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

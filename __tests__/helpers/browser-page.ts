import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A page in a headless Chromium driven over the DevTools protocol: read it, click in it, photograph it. */
export interface BrowserPage {
  /** The value of a JavaScript expression in the page (promises awaited). */
  evaluate<T>(expression: string): Promise<T>;
  /** Polls `expression` until it is truthy; returns its value. */
  waitFor<T>(what: string, expression: string, timeoutMs?: number): Promise<T>;
  /** A PNG of the whole page (its full height) at `width` CSS pixels, written to `file`. */
  screenshot(file: string, width: number): Promise<void>;
  close(): Promise<void>;
}

type Pending = { resolve: (value: any) => void; reject: (error: Error) => void };

/** The DevTools websocket address Chromium prints on stderr (here: into `logFile`) once it listens. */
async function devtoolsAddress(logFile: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let seen = '';
  while (Date.now() < deadline) {
    seen = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
    const match = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
    if (match) return match[1] as string;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`chromium printed no DevTools address within ${timeoutMs} ms: ${seen.slice(-500)}`);
}

/** Opens `url` in a fresh headless Chromium (its own profile directory) and waits for the page's load event. */
export async function openPage(chromium: string, url: string, viewport = { width: 1280, height: 900 }): Promise<BrowserPage> {
  const profile = mkdtempSync(path.join(tmpdir(), 'self-improve-chromium-'));
  const logFile = path.join(profile, 'chromium.log');
  const proc = Bun.spawn(
    [chromium, '--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--hide-scrollbars', '--remote-debugging-port=0', '--remote-allow-origins=*', `--user-data-dir=${profile}`, `--window-size=${viewport.width},${viewport.height}`, 'about:blank'],
    { stdout: 'ignore', stderr: Bun.file(logFile) },
  );
  const timer = setTimeout(() => proc.kill(), 300_000);
  proc.exited.then(() => clearTimeout(timer));
  let socket: WebSocket | undefined;
  const cleanup = () => {
    socket?.close();
    proc.kill();
    rmSync(profile, { recursive: true, force: true });
  };
  let nextId = 1;
  const pending = new Map<number, Pending>();
  const send = (method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<any> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      socket?.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  let sessionId: string;
  try {
    const opened = new WebSocket(await devtoolsAddress(logFile, 30_000));
    socket = opened;
    await new Promise<void>((resolve, reject) => {
      opened.addEventListener('open', () => resolve(), { once: true });
      opened.addEventListener('error', () => reject(new Error('could not connect to chromium')), { once: true });
    });
    opened.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: { message: string } };
      if (message.id === undefined) return;
      const waiting = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) waiting?.reject(new Error(message.error.message));
      else waiting?.resolve(message.result);
    });
    const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
    ({ sessionId } = await send('Target.attachToTarget', { targetId, flatten: true }));
  } catch (error) {
    cleanup();
    throw error;
  }
  const inPage = (method: string, params: Record<string, unknown> = {}) => send(method, params, sessionId);

  const evaluate = async <T>(expression: string): Promise<T> => {
    const answer = await inPage('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
    if (answer.exceptionDetails) throw new Error(`page threw: ${answer.exceptionDetails.exception?.description ?? answer.exceptionDetails.text}`);
    return answer.result.value as T;
  };
  const waitFor = async <T>(what: string, expression: string, timeoutMs = 20_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await evaluate<T>(expression);
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  try {
    await inPage('Emulation.setDeviceMetricsOverride', { width: viewport.width, height: viewport.height, deviceScaleFactor: 1, mobile: false });
    await inPage('Page.navigate', { url });
    await waitFor('the page to load', `location.href !== 'about:blank' && document.readyState === 'complete'`);
  } catch (error) {
    cleanup();
    throw error;
  }
  return {
    evaluate,
    waitFor,
    async screenshot(file, width) {
      const height = await evaluate<number>('Math.ceil(document.documentElement.scrollHeight)');
      await inPage('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false });
      const shot = await inPage('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true });
      writeFileSync(file, Buffer.from(shot.data as string, 'base64'));
      await inPage('Emulation.setDeviceMetricsOverride', { width: viewport.width, height: viewport.height, deviceScaleFactor: 1, mobile: false });
    },
    async close() {
      cleanup();
      await proc.exited;
    },
  };
}

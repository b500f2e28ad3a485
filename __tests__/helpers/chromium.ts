import { spawnSync } from 'node:child_process';

const CANDIDATES = ['chromium', 'chromium-browser', 'google-chrome'];

function findChromium(): string | null {
  for (const name of CANDIDATES) {
    const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (found.status === 0 && found.stdout.trim()) return found.stdout.trim();
  }
  return null;
}

/**
 * A headless Chromium for browser tests: the one on PATH, or Debian's `chromium` package installed
 * now (as root, with apt-get). Returns why not when neither works, so the test can say so and skip.
 */
export function ensureChromium(): { path: string } | { skip: string } {
  const present = findChromium();
  if (present) return { path: present };
  if (process.platform !== 'linux' || process.getuid?.() !== 0 || spawnSync('sh', ['-c', 'command -v apt-get']).status !== 0) {
    return { skip: 'no chromium on PATH and cannot install it here (needs root and apt-get: apt-get install chromium)' };
  }
  const install = () => spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { encoding: 'utf8', timeout: 600_000, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (install().status !== 0) {
    spawnSync('apt-get', ['update'], { encoding: 'utf8', timeout: 600_000 });
    const second = install();
    if (second.status !== 0) return { skip: `apt-get install chromium failed: ${(second.stderr || second.stdout).trim().split('\n').slice(-1)[0]}` };
  }
  const installed = findChromium();
  return installed ? { path: installed } : { skip: 'chromium was installed but is not on PATH' };
}

/**
 * The page's DOM after its scripts ran for `budgetMs` of virtual time, as headless Chromium prints
 * it. Asynchronous on purpose: the page's server may live in this same process.
 */
export async function renderedDom(chromium: string, url: string, budgetMs = 4_000): Promise<string> {
  const proc = Bun.spawn([chromium, '--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', `--virtual-time-budget=${budgetMs}`, '--dump-dom', url], {
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const timer = setTimeout(() => proc.kill(), 60_000);
  const [dom, errors, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  if (code !== 0) throw new Error(`chromium exited with ${code}: ${errors.slice(-500)}`);
  return dom;
}

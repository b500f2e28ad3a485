/** Small HTTP helpers for the real-server suite: every call goes over the loopback network. */

export interface HttpAnswer {
  status: number;
  text: string;
  /** The body as JSON, or undefined when it is not JSON. */
  json: any;
}

export async function request(url: string, init: { method?: string; contentType?: string; body?: string | Uint8Array; headers?: Record<string, string> } = {}): Promise<HttpAnswer> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  if (init.contentType) headers['content-type'] = init.contentType;
  const response = await fetch(url, { method: init.method ?? (init.body === undefined ? 'GET' : 'POST'), headers, body: init.body });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json };
}

export const post = (url: string, contentType: string, body: string | Uint8Array, headers?: Record<string, string>) => request(url, { contentType, body, headers });

/** Polls `probe` until it returns a value (not undefined) or `timeoutMs` passes. */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

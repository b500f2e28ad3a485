// readRequestBody on real HTTP requests (node:http, as the 1.7.2 server's Express hands them over:
// the body unparsed for any type but JSON, the stream at `res.req`).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RouteRequest, RouteResponse } from '@elizaos/core';
import { readRequestBody } from '../../src/shared/http/body';

/** A route response over node's ServerResponse, as Express gives a plugin route. */
function routeResponse(res: ServerResponse): RouteResponse {
  const out: RouteResponse = {
    status(code) {
      res.statusCode = code;
      return out;
    },
    json(data) {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(data));
      return out;
    },
    send(data) {
      res.end(String(data));
      return out;
    },
    end() {
      res.end();
      return out;
    },
  };
  return Object.assign(out, { req: res.req });
}

let server: Server;
let origin: string;
let before: (req: IncomingMessage) => Promise<void> = async () => undefined;

beforeAll(async () => {
  server = createServer(async (req, res) => {
    await before(req);
    const request: RouteRequest = { headers: req.headers as Record<string, string>, method: req.method, path: req.url };
    const body = await readRequestBody(request, routeResponse(res), 1_000_000, 'text');
    if (body) res.end(JSON.stringify({ length: body.text.length }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
});

async function postText(text: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(origin, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: text });
  return { status: res.status, body: await res.json() };
}

describe('a body read from the request stream', () => {
  test('read at once', async () => {
    before = async () => undefined;
    expect(await postText('x'.repeat(5_000))).toEqual({ status: 200, body: { length: 5_000 } });
  });

  test('read only after the whole body has arrived (a handler that waited for the services first) is read whole', async () => {
    let completeWhenRead = false;
    before = async (req) => {
      const waitedFrom = Date.now();
      while (!req.complete && Date.now() - waitedFrom < 5_000) await new Promise((resolve) => setTimeout(resolve, 5));
      completeWhenRead = req.complete;
    };
    expect(await postText('y'.repeat(5_000))).toEqual({ status: 200, body: { length: 5_000 } });
    // The case this is about: everything had arrived, nothing had been read.
    expect(completeWhenRead).toBe(true);
  });
});

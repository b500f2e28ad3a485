import type { RouteResponse } from '@elizaos/core';

/**
 * Records what a route handler sends, as the HTTP server's response object would receive it.
 * Only the response is a stand-in: the runtime and database behind the handler are real.
 */
export function recordingResponse() {
  const sent: { status: number; body: unknown } = { status: 200, body: undefined };
  const res: RouteResponse = {
    status(code) {
      sent.status = code;
      return res;
    },
    json(data) {
      sent.body = data;
      return res;
    },
    send(data) {
      sent.body = data;
      return res;
    },
    end() {
      return res;
    },
  };
  return { res, sent };
}

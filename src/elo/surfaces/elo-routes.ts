import type { IAgentRuntime, Route, RouteRequest, RouteResponse } from '@elizaos/core';
import type { EloBookService } from '../elo-book-service';
import { eloReport, parseTopK } from '../elo-report';
import { ELO_BOOK_SERVICE } from '../../shared/service-names';
import { queryParam } from '../../shared/http/body';

/**
 * GET /self-improve/elo?k=N: the ELO book's report (`eloReport`): tier counts and histogram overall
 * and per kind, the top k items per kind (k from 1 to 100, default 10), convergence and seed 002's
 * Success Metrics, as of now. 400 naming `k` and its allowed values when k is bad; 503 when the
 * ELO book is not running.
 */
export async function handleEloReport(req: RouteRequest, res: RouteResponse, runtime: IAgentRuntime): Promise<void> {
  const k = parseTopK(queryParam(req, 'k'), 'k');
  if (!k.ok) {
    res.status(400).json({ error: k.message });
    return;
  }
  const book = runtime.getService<EloBookService>(ELO_BOOK_SERVICE);
  if (!book) {
    res.status(503).json({ error: 'elo-book service is not running' });
    return;
  }
  res.status(200).json(await eloReport(book, { k: k.k }));
}

export const eloRoutes: Route[] = [{ type: 'GET', path: '/elo', name: 'self-improve-elo', handler: handleEloReport }];

import type { Plugin } from '@elizaos/core';
import { labelFindingAction } from './scan/surfaces/label-finding-action';
import { approveRuleAction, rejectRuleAction, retireRuleAction, validateRuleAction } from './rules/surfaces/rule-actions';
import { loadConfig } from './shared/config';
import { feedbackExtractor } from './rules/surfaces/feedback-extractor';
import { scanOutcomeExtractor } from './scan/surfaces/scan-outcome-extractor';
import { mergePluginEvents } from './shared/merge-events';
import { ruleAuditEvents } from './rules/surfaces/rule-audit-events';
import { runEvents } from './trajectories/surfaces/run-events';
import { highEloContextProvider } from './elo/surfaces/high-elo-context-provider';
import { scanLessonsProvider } from './scan/surfaces/scan-lessons-provider';
import { topRulesProvider } from './rules/surfaces/top-rules-provider';
import { outcomesRoute } from './scan/surfaces/outcome-routes';
import { eloRoutes } from './elo/surfaces/elo-routes';
import { ledgerRoutes } from './ledger/surfaces/ledger-routes';
import { ruleRoutes } from './rules/surfaces/rule-routes';
import { guardedRoute } from './shared/http/guarded-route';
import { getTrajectoriesRoute, postTrajectoryRoute } from './trajectories/surfaces/trajectory-routes';
import { metricsRoute, triageRoute } from './scan/surfaces/triage-routes';
import { learningRoutes } from './scan/surfaces/learning-routes';
import { EloBookService } from './elo/elo-book-service';
import { RewardLedgerService } from './ledger/reward-ledger-service';
import { RuleBookService } from './rules/rule-book-service';
import { ScanOutcomeService } from './scan/scan-outcome-service';
import { TrajectoryService } from './trajectories/trajectory-service';
import { selfImproveTables } from './shared/schema';
import { warmUpContextInBackground } from './context/context-warm-up';
import { refuseServedDirectory } from './pglite-server/served-lock';
import { errorText } from './shared/error-text';
import { actionAfterStart, eventsAfterStart, providerAfterStart, routeAfterStart } from './shared/plugin-start';

/**
 * plugin-self-improve: scan outcomes -> weighted rewards -> deduplicated lessons; events -> typed
 * rules with decaying confidence and an action audit; ELO for what the agent knows; a reward ledger.
 */
export const selfImprovePlugin: Plugin = {
  name: 'self-improve',
  description: 'Learns from the outcomes of its work: weighted rewards, lessons with provenance, typed rules, ELO-ranked context, a tamper-evident reward ledger.',
  init: async (_config, runtime) => {
    try {
      refuseServedDirectory();
      loadConfig(runtime);
    } catch (error) {
      // The 1.7.2 server does not print a plugin's init error: the agent's start just never ends.
      runtime.logger.error({ src: 'plugin:self-improve', agentId: runtime.agentId }, `[self-improve] the agent cannot start: ${errorText(error)}`);
      throw error;
    }
    warmUpContextInBackground(runtime);
  },
  schema: selfImproveTables,
  services: [ScanOutcomeService, TrajectoryService, RewardLedgerService, EloBookService, RuleBookService],
  // Every surface waits for the services to start (bounded: `pluginStarted`): the runtime starts
  // them after `initialize` returns, while the server already routes requests and messages here.
  actions: [labelFindingAction, validateRuleAction, retireRuleAction, approveRuleAction, rejectRuleAction].map(actionAfterStart),
  evaluators: [scanOutcomeExtractor, feedbackExtractor].map(actionAfterStart),
  providers: [scanLessonsProvider, highEloContextProvider, topRulesProvider].map(providerAfterStart),
  routes: [outcomesRoute, triageRoute, metricsRoute, postTrajectoryRoute, getTrajectoriesRoute, ...ledgerRoutes, ...eloRoutes, ...ruleRoutes, ...learningRoutes].map((route) => guardedRoute(routeAfterStart(route))),
  events: eventsAfterStart(mergePluginEvents(runEvents, ruleAuditEvents)),
};

export default selfImprovePlugin;

// The public API: the plugin, its services (with their lookups and the types their methods take
// and return), its tables, its settings, the outcome row format, and the pure formulas a user may
// call. Everything else is internal; `__tests__/package/public-api.test.ts` holds the list.
export { ScanOutcomeService, scanOutcomeServiceOf, type OutcomeIngestResult, type PredictResult, type TriagePrediction } from './scan/scan-outcome-service';
export type { LearnReport } from './scan/scan-learner';
export type { ScanLesson } from './scan/scan-lesson-metadata';
export type { ScanMetricsReport } from './scan/model/metrics';
export type { WeeklyTriageReport } from './scan/model/weekly-triage';
export { TrajectoryService, trajectoryServiceOf, type StoredTrajectory, type TrajectoryRecordOptions, type TrajectorySource } from './trajectories/trajectory-service';
export type { TrajectoryInput } from './trajectories/model/input';
export { RewardLedgerService, rewardLedgerOf, type AppendResult, type CheckpointResult, type LedgerVerification, type ReconcileReport } from './ledger/reward-ledger-service';
export type { HistoryQuery, LedgerMetrics, LedgerTotals } from './ledger/model/totals';
export { EloBookService, eloBookOf, type AccessOptions, type Retrieval, type RetrievedItem } from './elo/elo-book-service';
export type { EloItemState } from './elo/elo-store';
export type { ItemRef } from './elo/model/exposures';
export type { ContextItem } from './elo/model/context-index';
export { RuleBookService, ruleBookOf, type EventIngestResult, type EventTextResult, type GuardSettlement, type ImportResult, type RuleChange, type RuleFilter } from './rules/rule-book-service';
export type { Rule, RuleLesson } from './rules/model/types';
export type { RuleExport } from './rules/model/export';
export type { RuleMetrics } from './rules/model/metrics';
export { selfImproveTables } from './shared/schema';
export { ConfigError, loadConfig, parseConfig, type SelfImproveConfig, settingsSchema } from './shared/config';
export { checkOutcomeRow, checkOutcomeRows, type FindingRow, OUTCOME_LABELS, type OutcomeLabel, type OutcomeRow, type RowRejection } from './scan/model/outcome';
export { REWARD_BY_LABEL, weightedReward } from './scan/model/reward';
export { statisticalSupport, summarizeOutcomes, wilsonInterval } from './shared/stats';
export type { GroupKey } from './scan/model/grouping';
export { type TriageEstimate, TriagePrior } from './scan/model/triage-prior';
export * as elo from './elo/model/elo';
export type { LedgerTransaction } from './ledger/model/chain';
export { verifyChain } from './ledger/model/chain-check';
export { type LedgerCheckpoint, makeCheckpoint, verifyAgainstCheckpoint } from './ledger/model/checkpoint';
export { parseSarif, type SarifDefaults } from './scan/model/sarif';
export { brierScore, type Forecast, logLoss, rocAuc } from './scan/model/forecast-scores';

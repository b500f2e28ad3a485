import type { Plugin } from '@elizaos/core';
import { labelFindingAction } from './actions/label-finding';
import { approveRuleAction, rejectRuleAction, retireRuleAction, validateRuleAction } from './actions/rule-actions';
import { loadConfig } from './config';
import { feedbackExtractor } from './evaluators/feedback-extractor';
import { scanOutcomeExtractor } from './evaluators/scan-outcome-extractor';
import { mergePluginEvents } from './events/merge-events';
import { ruleAuditEvents } from './events/rule-audit-events';
import { runEvents } from './events/run-events';
import { highEloContextProvider } from './providers/high-elo-context';
import { scanLessonsProvider } from './providers/scan-lessons';
import { topRulesProvider } from './providers/top-rules';
import { outcomesRoute } from './routes/outcomes-route';
import { eloRoutes } from './routes/elo-routes';
import { ledgerRoutes } from './routes/ledger-routes';
import { ruleRoutes } from './routes/rule-routes';
import { guardedRoute } from './routes/guarded-route';
import { getTrajectoriesRoute, postTrajectoryRoute } from './routes/trajectory-routes';
import { metricsRoute, triageRoute } from './routes/triage-routes';
import { learningRoutes } from './routes/learning-routes';
import { EloBookService } from './services/elo-book-service';
import { RewardLedgerService } from './services/reward-ledger-service';
import { RuleBookService } from './services/rule-book-service';
import { ScanOutcomeService } from './services/scan-outcome-service';
import { TrajectoryService } from './services/trajectory-service';

/**
 * plugin-self-improve: scan outcomes -> weighted rewards -> deduplicated lessons; events -> typed
 * rules with decaying confidence and an action audit; ELO for what the agent knows; a reward ledger.
 */
export const selfImprovePlugin: Plugin = {
  name: 'self-improve',
  description: 'Learns from the outcomes of its work: weighted rewards, lessons with provenance, typed rules, ELO-ranked context, a tamper-evident reward ledger.',
  init: async (_config, runtime) => {
    loadConfig(runtime);
  },
  services: [ScanOutcomeService, TrajectoryService, RewardLedgerService, EloBookService, RuleBookService],
  actions: [labelFindingAction, validateRuleAction, retireRuleAction, approveRuleAction, rejectRuleAction],
  evaluators: [scanOutcomeExtractor, feedbackExtractor],
  providers: [scanLessonsProvider, highEloContextProvider, topRulesProvider],
  routes: [outcomesRoute, triageRoute, metricsRoute, postTrajectoryRoute, getTrajectoriesRoute, ...ledgerRoutes, ...eloRoutes, ...ruleRoutes, ...learningRoutes].map(guardedRoute),
  events: mergePluginEvents(runEvents, ruleAuditEvents),
};

export default selfImprovePlugin;

export { ConfigError, loadConfig, parseConfig, type SelfImproveConfig, settingsSchema } from './config';
export { coveringWindowEnds, describeGroup, type GroupKey, groupId, groupKeyOf } from './domain/grouping';
export { draftStatisticalLessons, LESSON_CATEGORIES, type LessonCategory, type LessonDraft, lessonConfidence } from './domain/lesson';
export { buildLessonPrompt, parseLessonOutput } from './domain/lesson-prompt';
export { freshness, rankLessons } from './domain/lesson-ranking';
export { lexicalVector } from './domain/lexical-vector';
export { escapeForPrompt, estimateTokens, packWithinBudget } from './domain/prompt-text';
export { checkOutcomeRow, checkOutcomeRows, type FindingRow, OUTCOME_LABELS, type OutcomeLabel, type OutcomeRow, type RowRejection } from './domain/outcome';
export { REWARD_BY_LABEL, weightedReward } from './domain/reward';
export { type GroupStats, statisticalSupport, summarizeOutcomes, wilsonInterval } from './domain/stats';
export { brierScore, type Forecast, logLoss, rocAuc } from './domain/forecast-scores';
export { type LabelRequest, parseLabelRequest } from './domain/label-request';
export { parseSarif, SARIF_FALSE_POSITIVE_PATTERN, type SarifDefaults, type SarifError, type SarifFinding, sarifLabel } from './domain/sarif';
export { computeScanMetrics, expectedCalibrationError, type MetricSet, type ScanMetricsReport } from './domain/scan-metrics';
export { type LevelEvidence, TRIAGE_LEVELS, type TriageEstimate, TriagePrior, triageLevelIds } from './domain/triage-prior';
export { labelFindingAction } from './actions/label-finding';
export { scanOutcomeExtractor } from './evaluators/scan-outcome-extractor';
export { formatLessonLine, formatPriorLine, messageContext, SCAN_LESSONS_HEADER, scanLessonsProvider } from './providers/scan-lessons';
export { handlePostOutcomes, outcomesRoute } from './routes/outcomes-route';
export { handleGetMetrics, handlePostTriage, metricsRoute, triageRoute } from './routes/triage-routes';
export { handleGetLessons, handleGetWeeklyMetrics, type LessonListItem, learningRoutes } from './routes/learning-routes';
export { utcWeekStartMs, weeklyTriage, type WeeklyTriagePoint, type WeeklyTriageReport } from './domain/weekly-triage';
export { type KnownFinding } from './services/finding-store';
export { predictText } from './services/predict-text';
export { type ReplayReport, replayOutcomes } from './services/replay';
export { ingestSarif, type SarifIngestResult } from './services/sarif-ingest';
export { ingestText, type LineRejection, type TextIngestResult } from './services/ingest-text';
export { type Lesson, type LessonMetadata, LESSON_MEMORY_TYPE, LESSONS_TABLE } from './services/lesson-metadata';
export type { LearnReport } from './services/scan-learner';
export { type IngestResult, type PredictResult, SCAN_OUTCOME_SERVICE, ScanOutcomeService, scanOutcomeServiceOf, type TriagePrediction } from './services/scan-outcome-service';
export { LEARN_TASK_NAME, learnPendingWorker } from './tasks/learn-pending-task';
export { evaluateTrajectory, type TrajectoryEvaluation, type TrajectoryPolicy } from './domain/trajectory-evaluation';
export { RunRecorder } from './services/run-recorder';
export { type AccessOptions, EloBookService, eloBookOf, type EloBookSettings, LESSON_KIND, type Retrieval, type RetrievedItem } from './services/elo-book-service';
export { highEloContextProvider } from './providers/high-elo-context';
export { eloRoutes, handleEloReport } from './routes/elo-routes';
export { type EloReport, eloReport } from './services/elo-report';
export { eloStats, type EloStatsReport } from './domain/elo-stats';
export { contextLine, HIGH_ELO_CONTEXT_HEADER, packRatedContent, summaryOf } from './domain/elo-context-text';
export { blendWithElo } from './domain/elo-blend';
export { ContextIndex, type ContextItem } from './domain/context-index';
export { initialTierFor, parseTierMap, SEED_INITIAL_TIERS } from './domain/elo-tier-map';
export * as elo from './domain/elo';
export { checkEntry, type LedgerEntryInput, type LedgerTransaction, nextTransaction, transactionHash, verifyChain } from './domain/ledger-chain';
export { checkpointSchema, type LedgerCheckpoint, makeCheckpoint, verifyAgainstCheckpoint } from './domain/ledger-checkpoint';
export { ledgerMetrics, ledgerTotals } from './domain/ledger-totals';
export { buildProgressJson, PROGRESS_JSON_SCHEMA } from './domain/progress-json';
export { ledgerRoutes } from './routes/ledger-routes';
export { type AppendResult, DEFAULT_LEDGER_CATEGORIES, type LedgerVerification, RewardLedgerService, rewardLedgerOf, type SourceCheck } from './services/reward-ledger-service';
export { type StoredTrajectory, TRAJECTORY_MEMORY_TYPE, TrajectoryService, trajectoryServiceOf } from './services/trajectory-service';
export { getTrajectoriesRoute, handleGetTrajectories, handlePostTrajectory, postTrajectoryRoute } from './routes/trajectory-routes';
export { type EventIngestResult, type EventTextResult, type GuardSettlement, type ImportResult, RULE_BOOK_SERVICE, RULE_KIND, type RuleChange, type RuleFilter, RuleBookService, ruleBookOf } from './services/rule-book-service';
export { handleApproveRule, handleExportRules, handleGetRuleMetrics, handleGetRules, handlePostEvents, handleRejectRule, ruleRoutes } from './routes/rule-routes';
export { approveRuleAction, rejectRuleAction, retireRuleAction, validateRuleAction } from './actions/rule-actions';
export { parseRuleRequest, type RuleRequest } from './domain/rule-request';
export { FEEDBACK_EVENT_SOURCE, feedbackExtractor } from './evaluators/feedback-extractor';
export { topRulesProvider } from './providers/top-rules';
export { ACTION_EVENT_SOURCE, actionTexts, ruleAuditEvents } from './events/rule-audit-events';
export { decideTrust, parseEntityList, type Trust, type TrustBasis } from './domain/trust';
export { isTrusted, trustOf } from './services/speaker-trust';
export { checkSignature, keyIdOf, parsePrivateKey, parsePublicKey, signDocument } from './domain/rule-signing';
export { mergePluginEvents } from './events/merge-events';

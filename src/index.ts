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
  schema: selfImproveTables,
  services: [ScanOutcomeService, TrajectoryService, RewardLedgerService, EloBookService, RuleBookService],
  actions: [labelFindingAction, validateRuleAction, retireRuleAction, approveRuleAction, rejectRuleAction],
  evaluators: [scanOutcomeExtractor, feedbackExtractor],
  providers: [scanLessonsProvider, highEloContextProvider, topRulesProvider],
  routes: [outcomesRoute, triageRoute, metricsRoute, postTrajectoryRoute, getTrajectoriesRoute, ...ledgerRoutes, ...eloRoutes, ...ruleRoutes, ...learningRoutes].map(guardedRoute),
  events: mergePluginEvents(runEvents, ruleAuditEvents),
};

export default selfImprovePlugin;

export { ConfigError, loadConfig, parseConfig, type SelfImproveConfig, settingsSchema } from './shared/config';
export { coveringWindowEnds, describeGroup, type GroupKey, groupId, groupKeyOf } from './scan/model/grouping';
export { draftStatisticalLessons, LESSON_CATEGORIES, type LessonCategory, type LessonDraft, lessonConfidence } from './scan/model/lesson';
export { buildLessonPrompt, parseLessonOutput } from './scan/model/lesson-prompt';
export { freshness, rankLessons } from './scan/model/lesson-ranking';
export { lexicalVector } from './shared/lexical-vector';
export { escapeForPrompt, estimateTokens, packWithinBudget } from './shared/prompt-text';
export { checkOutcomeRow, checkOutcomeRows, type FindingRow, OUTCOME_LABELS, type OutcomeLabel, type OutcomeRow, type RowRejection } from './scan/model/outcome';
export { REWARD_BY_LABEL, weightedReward } from './scan/model/reward';
export { type GroupStats, statisticalSupport, summarizeOutcomes, wilsonInterval } from './shared/stats';
export { brierScore, type Forecast, logLoss, rocAuc } from './scan/model/forecast-scores';
export { type LabelRequest, parseLabelRequest } from './scan/model/label-request';
export { parseSarif, SARIF_FALSE_POSITIVE_PATTERN, type SarifDefaults, type SarifError, type SarifFinding, sarifLabel } from './scan/model/sarif';
export { computeScanMetrics, expectedCalibrationError, type MetricSet, type ScanMetricsReport } from './scan/model/metrics';
export { type LevelEvidence, TRIAGE_LEVELS, type TriageEstimate, TriagePrior, triageLevelIds } from './scan/model/triage-prior';
export { labelFindingAction } from './scan/surfaces/label-finding-action';
export { scanOutcomeExtractor } from './scan/surfaces/scan-outcome-extractor';
export { formatLessonLine, formatPriorLine, messageContext, SCAN_LESSONS_HEADER, scanLessonsProvider } from './scan/surfaces/scan-lessons-provider';
export { handlePostOutcomes, outcomesRoute } from './scan/surfaces/outcome-routes';
export { handleGetMetrics, handlePostTriage, metricsRoute, triageRoute } from './scan/surfaces/triage-routes';
export { handleGetLessons, handleGetWeeklyMetrics, type LessonListItem, learningRoutes } from './scan/surfaces/learning-routes';
export { utcWeekStartMs, weeklyTriage, type WeeklyTriagePoint, type WeeklyTriageReport } from './scan/model/weekly-triage';
export { type KnownFinding } from './scan/finding-store';
export { predictText } from './scan/predict-text';
export { type ReplayReport, replayOutcomes } from './scan/replay';
export { ingestSarif, type SarifIngestResult } from './scan/sarif-ingest';
export { ingestText, type LineRejection, type TextIngestResult } from './shared/ingest-text';
export { type Lesson, type LessonMetadata, LESSON_MEMORY_TYPE, LESSONS_TABLE } from './scan/lesson-metadata';
export type { LearnReport } from './scan/scan-learner';
export { type IngestResult, type PredictResult, SCAN_OUTCOME_SERVICE, ScanOutcomeService, scanOutcomeServiceOf, type TriagePrediction } from './scan/scan-outcome-service';
export { LEARN_TASK_NAME, learnPendingWorker } from './scan/surfaces/learn-pending-task';
export { evaluateTrajectory, type TrajectoryEvaluation, type TrajectoryPolicy } from './trajectories/model/evaluation';
export { RunRecorder } from './trajectories/run-recorder';
export { type AccessOptions, EloBookService, eloBookOf, type EloBookSettings, LESSON_KIND, type Retrieval, type RetrievedItem } from './elo/elo-book-service';
export { highEloContextProvider } from './elo/surfaces/high-elo-context-provider';
export { eloRoutes, handleEloReport } from './elo/surfaces/elo-routes';
export { type EloReport, eloReport } from './elo/elo-report';
export { eloStats, type EloStatsReport } from './elo/model/stats';
export { contextLine, HIGH_ELO_CONTEXT_HEADER, packRatedContent, summaryOf } from './elo/model/context-text';
export { blendWithElo } from './elo/model/blend';
export { ContextIndex, type ContextItem } from './elo/model/context-index';
export { initialTierFor, parseTierMap, SEED_INITIAL_TIERS } from './elo/model/tier-map';
export * as elo from './elo/model/elo';
export { checkEntry, type LedgerEntryInput, type LedgerTransaction, nextTransaction, transactionHash } from './ledger/model/chain';
export { verifyChain } from './ledger/model/chain-check';
export { checkpointSchema, type LedgerCheckpoint, makeCheckpoint, verifyAgainstCheckpoint } from './ledger/model/checkpoint';
export { ledgerMetrics, ledgerTotals } from './ledger/model/totals';
export { buildProgressJson, PROGRESS_JSON_SCHEMA } from './ledger/model/progress-json';
export { ledgerRoutes } from './ledger/surfaces/ledger-routes';
export { type AppendResult, DEFAULT_LEDGER_CATEGORIES, type LedgerVerification, RewardLedgerService, rewardLedgerOf, type SourceCheck } from './ledger/reward-ledger-service';
export { type StoredTrajectory, TRAJECTORY_MEMORY_TYPE, TrajectoryService, trajectoryServiceOf } from './trajectories/trajectory-service';
export { getTrajectoriesRoute, handleGetTrajectories, handlePostTrajectory, postTrajectoryRoute } from './trajectories/surfaces/trajectory-routes';
export { type EventIngestResult, type EventTextResult, type GuardSettlement, type ImportResult, RULE_BOOK_SERVICE, RULE_KIND, type RuleChange, type RuleFilter, RuleBookService, ruleBookOf } from './rules/rule-book-service';
export { handleApproveRule, handleExportRules, handleGetRuleMetrics, handleGetRules, handlePostEvents, handleRejectRule, ruleRoutes } from './rules/surfaces/rule-routes';
export { approveRuleAction, rejectRuleAction, retireRuleAction, validateRuleAction } from './rules/surfaces/rule-actions';
export { parseRuleRequest, type RuleRequest } from './rules/model/request';
export { FEEDBACK_EVENT_SOURCE, feedbackExtractor } from './rules/surfaces/feedback-extractor';
export { topRulesProvider } from './rules/surfaces/top-rules-provider';
export { ACTION_EVENT_SOURCE, actionTexts, ruleAuditEvents } from './rules/surfaces/rule-audit-events';
export { decideTrust, parseEntityList, type Trust, type TrustBasis } from './shared/trust';
export { isTrusted, trustOf } from './shared/speaker-trust';
export { checkSignature, keyIdOf, parsePrivateKey, parsePublicKey, signDocument } from './rules/model/signing';
export { mergePluginEvents } from './shared/merge-events';
export { selfImproveTables } from './shared/schema';

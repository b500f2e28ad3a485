/** Service type of ScanOutcomeService, as registered with the runtime. */
export const SCAN_OUTCOME_SERVICE = 'scan-outcomes';
/** Service type of TrajectoryService. */
export const TRAJECTORY_SERVICE = 'trajectories';
/** Service type of RewardLedgerService. */
export const REWARD_LEDGER_SERVICE = 'reward-ledger';
/** Service type of EloBookService. */
export const ELO_BOOK_SERVICE = 'elo-book';
/** Service type of RuleBookService. */
export const RULE_BOOK_SERVICE = 'rule-book';
/** Every service of the plugin. */
export const PLUGIN_SERVICES = [SCAN_OUTCOME_SERVICE, TRAJECTORY_SERVICE, REWARD_LEDGER_SERVICE, ELO_BOOK_SERVICE, RULE_BOOK_SERVICE] as const;

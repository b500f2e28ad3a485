/** Service type of ScanOutcomeService, as registered with the runtime. */
export const SCAN_OUTCOME_SERVICE = 'scan-outcomes';

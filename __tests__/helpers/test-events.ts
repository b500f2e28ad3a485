/**
 * A ledger entry of a made-up source, `test_event` (register it on the ledger with a check that
 * accepts every record): a reward in `guard_decision` when `points` is positive, else a penalty in
 * `rule_violated`.
 */
export const testEvent = (ref: string, points: number) => ({
  type: points > 0 ? 'reward' : 'penalty',
  category: points > 0 ? 'guard_decision' : 'rule_violated',
  points,
  action: `event ${ref}`,
  source: 'test_event',
  source_ref: ref,
});

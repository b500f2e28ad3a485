import { exportRules, type RuleExport } from './model/export';
import { asCandidates, type ImportError, type ImportStep, planImport, verifyImport } from './model/import';
import { checkSignature, type ImportTrust, type RuleSignature, signDocument, type UnsignedMark } from './model/signing';
import type { RuleBookState } from './rule-book-state';
import { withConflicts } from './rule-learning';

/**
 * An import: the rules added and skipped, and how far the file was trusted: `trusted` (signed by a
 * trusted key: imported as they are), `unsigned` or `unknown_signer` (imported as candidates).
 */
export type ImportResult = { ok: true; steps: ImportStep[]; added: string[]; skipped: number; trust: ImportTrust; keyId?: string } | ImportError;

/** Rules out and in between agents: seed 003's signed export document, and its verified import. */
export class RuleExchange {
  constructor(private readonly state: RuleBookState) {}

  /**
   * Seed 003's export document of the stored rules (by id; all statuses), only `category` when
   * given, signed with SELF_IMPROVE_RULE_SIGNING_KEY (`signDocument`); without a key its
   * `signature` says it is unsigned.
   */
  exportRules(options: { category?: string; agentHandle: string; sourceWorkspace: string; nowMs?: number }): RuleExport & { signature: RuleSignature | UnsignedMark } {
    const rules = [...this.state.rules.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
    const doc = exportRules(rules, { agentHandle: options.agentHandle, sourceWorkspace: options.sourceWorkspace, nowMs: options.nowMs ?? Date.now(), ...(options.category === undefined ? {} : { category: options.category }) });
    return signDocument(doc, this.state.settings.signingKey);
  }

  /**
   * Verifies an export document (`verifyImport`: the first bad rule is named; then
   * `checkSignature`: a signature that does not verify refuses the file) and adds its rules
   * (`planImport`: new ids after the stored ones, duplicates of stored rules skipped), conflicts
   * recomputed, in one transaction. Signed by a trusted key (SELF_IMPROVE_RULE_TRUSTED_KEYS or the
   * agent's own signing key): the rules come in as they are. Unsigned or signed by another key:
   * active rules come in as candidates (`asCandidates`) for a trusted person to approve.
   */
  importRules(doc: unknown): Promise<ImportResult> {
    const state = this.state;
    return state.writes.run(async (): Promise<ImportResult> => {
      const verified = verifyImport(doc);
      if (!verified.ok) return verified;
      const signature = checkSignature(doc, state.settings.trustedKeyIds);
      if (!signature.ok) return signature;
      const imported = signature.trust === 'trusted' ? verified.rules : asCandidates(verified.rules);
      const steps = planImport(imported, [...state.rules.values()]);
      const added = steps.flatMap((s) => (s.action === 'add' ? [s.rule] : []));
      const rules = added.length === 0 ? [] : withConflicts(state.rules, added);
      await state.store.upsertRules(rules);
      state.adoptRules(rules);
      return { ok: true, steps, added: added.map((r) => r.id), skipped: steps.length - added.length, trust: signature.trust, ...(signature.trust === 'unsigned' ? {} : { keyId: signature.keyId }) };
    });
  }
}

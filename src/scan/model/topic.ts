/**
 * Words that make a message about scan findings even when it names no project, scanner, model or
 * category the plugin knows: "is this scanner finding a false positive?". Whole words (or word
 * pairs) of the lower-cased text with every run of other characters read as one space.
 */
export const SCAN_TOPIC_TERMS: readonly string[] = [
  'finding', 'findings', 'scan', 'scans', 'scanner', 'scanners', 'scanning', 'triage', 'triaged', 'triaging',
  'false positive', 'false positives', 'static analysis', 'sast', 'cwe', 'vulnerability', 'vulnerabilities',
];

const PADDED_TERMS = SCAN_TOPIC_TERMS.map((t) => ` ${t} `);

/** Whether `text` contains one of `SCAN_TOPIC_TERMS` as whole words. */
export function mentionsScanTopic(text: string): boolean {
  const words = ` ${text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim()} `;
  return PADDED_TERMS.some((t) => words.includes(t));
}

import { z } from 'zod';

/** How much is hidden; each level hides everything the one before it hides. */
export const REDACTION_LEVELS = ['standard', 'strict', 'paranoid'] as const;
export type RedactionLevel = (typeof REDACTION_LEVELS)[number];

/** What a redacted span was, in the order the rules run. */
export const REDACTION_KINDS = [
  'private_key', 'url_credentials', 'token', 'aws_access_key', 'password', 'secret',
  'email', 'home_path', 'ip_address', 'hostname', 'high_entropy',
] as const;
export type RedactionKind = (typeof REDACTION_KINDS)[number];

export interface RedactionResult {
  text: string;
  /** How many spans of each kind were replaced; every kind is present, most are 0. */
  counts: Record<RedactionKind, number>;
}

/** A level read from settings, HTTP or CLI input; the error lists the allowed levels. */
export const redactionLevelSchema = z.enum(REDACTION_LEVELS, {
  errorMap: (_issue, ctx) => ({
    message: `redaction level must be one of ${REDACTION_LEVELS.join(', ')} (got ${JSON.stringify(ctx.data)})`,
  }),
});

const LEVEL_RANK: Record<RedactionLevel, number> = { standard: 0, strict: 1, paranoid: 2 };

/** The text that replaces a span: `[REDACTED:<kind>]` (home paths become `~` instead). */
export const placeholder = (kind: RedactionKind): string => `[REDACTED:${kind}]`;

/** `groups` are the capture groups of one match, '' when a group did not take part. */
interface Rule {
  kind: RedactionKind;
  level: RedactionLevel;
  pattern: RegExp;
  /** True when the match is not a secret after all: it stays and is not counted. */
  keep?: (match: string, groups: string[]) => boolean;
  /** The replacement; by default the whole match becomes `[REDACTED:<kind>]`. */
  replace?: (groups: string[]) => string;
}

/** Keywords whose assigned value is hidden: `<name ending in keyword> = value`, `: value`, `--keyword value`. */
const PASSWORD_NAMES = 'password|passwd|passphrase';
const SECRET_NAMES = 'secret|token|api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key';

/** `$VAR`, `${VAR}` and `****` are references or masks, not secrets: they stay. */
const NOT_A_VALUE = /^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\*+)$/;

function assignment(kind: RedactionKind, names: string): Rule {
  return {
    kind,
    level: 'standard',
    pattern: new RegExp(
      `((?:${names})["']?[ \\t]*[:=][ \\t]*|--(?:${names})[ \\t]+)` +
        `(?:(\\\\?(["']))(?!\\[REDACTED:)((?:(?!\\3)[^\\\\\\n])+)|(?!\\[REDACTED:)([^\\s'",;&\\\\]+))`,
      'gi',
    ),
    keep: (_match, [, , , quoted = '', bare = '']) => NOT_A_VALUE.test(quoted || bare),
    replace: ([name = '', quote = '']) => `${name}${quote}${placeholder(kind)}`,
  };
}

/**
 * Provider token shapes: GitHub (ghp_/gho_/ghs_/ghu_/ghr_, github_pat_), OpenAI/Anthropic (sk-, sk-ant-,
 * sk-proj-; at least 20 characters with a digit), Slack (xox[abprs]-, xapp-), GitLab (glpat-), npm (npm_),
 * Google (AIza), Hugging Face (hf_), Stripe (sk_live_, rk_test_, ...), JWTs (eyJ… three base64url parts).
 * A token must not continue a word: `task-sk-…` and `xghp_…` are not tokens.
 */
const TOKEN_SHAPES = [
  'gh[pousr]_[A-Za-z0-9]{20,}',
  'github_pat_[A-Za-z0-9_]{20,}',
  'sk-(?:ant-|proj-|svcacct-|admin-)?(?=[A-Za-z_-]*[0-9])[A-Za-z0-9_-]{20,}',
  'xox[abprs]-[A-Za-z0-9-]{10,}',
  'xapp-[A-Za-z0-9-]{10,}',
  'glpat-[A-Za-z0-9_-]{20,}',
  'npm_[A-Za-z0-9]{36}',
  'AIza[A-Za-z0-9_-]{35}',
  'hf_[A-Za-z0-9]{30,}',
  '[spr]k_(?:live|test)_[A-Za-z0-9]{16,}',
  'eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]*',
];

/** A Bearer/Basic credential is at least 8 characters and has a digit or is 20+ long ("Bearer authentication" stays). */
const looksLikeCredential = (token: string) => token.length >= 8 && (/\d/.test(token) || token.length >= 20);

/** Last labels that make a dotted name a host name; file extensions (md, ts, py, rs, sh) and code (.info, .test) are left out. */
const HOST_TLDS = new Set(
  ('com net org io dev ai co uk us de fr nl eu jp cn ca au ch tv gov edu mil cloud tech xyz online ' +
    'internal local lan corp arpa example').split(' '),
);

function isIpv6(candidate: string): boolean {
  const halves = candidate.split('::');
  if (halves.length > 2 || candidate === '::1') return false;
  const groups = halves.flatMap((half) => (half === '' ? [] : half.split(':')));
  if (!groups.every((group) => /^[0-9A-Fa-f]{1,4}$/.test(group))) return false;
  const complete = halves.length === 2 ? groups.length <= 7 : groups.length === 8;
  return complete && (groups.length === 8 || /\d/.test(candidate));
}

/** Shannon entropy of the character distribution, in bits per character. */
export function entropyBitsPerChar(text: string): number {
  const seen = new Map<string, number>();
  for (const ch of text) seen.set(ch, (seen.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of seen.values()) bits -= (n / text.length) * Math.log2(n / text.length);
  return bits;
}

/**
 * A leftover run of 32+ base64/hex characters is a secret when it is hex with letters and digits
 * (entropy ≥ 2.5 bits/char; this includes commit hashes and digests) or has lower case, upper case and
 * digits (entropy ≥ 3.5 bits/char; long mixed-case identifiers are hidden too — paranoid errs that way).
 */
export function isHighEntropyToken(token: string): boolean {
  if (token.length < 32) return false;
  if (/^[0-9A-Fa-f]+$/.test(token)) return /\d/.test(token) && /[A-Fa-f]/.test(token) && entropyBitsPerChar(token) >= 2.5;
  return /[a-z]/.test(token) && /[A-Z]/.test(token) && /\d/.test(token) && entropyBitsPerChar(token) >= 3.5;
}

/** Passes over the text before giving up on a fixed point; real text settles in one or two. */
const MAX_PASSES = 4;

/** Rules in the order they run: all standard rules, then strict, then paranoid, so levels only add. */
const RULES: readonly Rule[] = [
  {
    kind: 'private_key',
    level: 'standard',
    // A whole PEM block; a block cut off before its END line loses its base64 lines.
    pattern:
      /-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----(?:[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY-----|(?:(?:\r?\n|\\r?\\n)[A-Za-z0-9+/=]+(?=\r?\n|\\[rn]|["']|$))*)/g,
  },
  {
    kind: 'url_credentials',
    level: 'standard',
    // scheme://user:pass@host keeps the scheme and the host; user info never holds `[`, `]`, `/`,
    // `?`, `#`, and a user `~` is the home-path placeholder.
    pattern: /\b([A-Za-z][A-Za-z0-9+.-]{0,31}:\/\/)[^\s/?#@:'"<>[\]~]*:[^\s/?#'"<>[\]]*@/g,
    replace: ([scheme = '']) => `${scheme}${placeholder('url_credentials')}@`,
  },
  { kind: 'token', level: 'standard', pattern: new RegExp(`(?<![A-Za-z0-9_-])(?:${TOKEN_SHAPES.join('|')})`, 'g') },
  { kind: 'aws_access_key', level: 'standard', pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/g },
  {
    kind: 'token',
    level: 'standard',
    // A credential never starts with `~`, the home-path placeholder.
    pattern: /\b(Bearer|Authorization:[ \t]*(?:Basic|Token))([ \t]+)(?!\[REDACTED:|~)([A-Za-z0-9._~+/=-]+)/gi,
    keep: (_match, [, , token = '']) => !looksLikeCredential(token),
    replace: ([scheme = '', space = '']) => `${scheme}${space}${placeholder('token')}`,
  },
  assignment('password', PASSWORD_NAMES),
  {
    kind: 'password',
    level: 'standard',
    // curl/wget `-u user:pass`, `--user=user:pass`: the user stays.
    pattern: /(?<!\S)(-u|--user)([ \t]+|=)(["']?)([^\s:'"[\]]+):[^\s'"[\]]+/g,
    replace: ([flag = '', sep = '', quote = '', user = '']) => `${flag}${sep}${quote}${user}:${placeholder('password')}`,
  },
  assignment('secret', SECRET_NAMES),
  {
    kind: 'email',
    level: 'strict',
    // `git@host` (the SSH user of git hosts) is not a person's address.
    pattern: /(?<![A-Za-z0-9._%+-])(?!git@)[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g,
  },
  {
    kind: 'home_path',
    level: 'strict',
    pattern: /(?<![\w.~-])\/(?:home|Users)\/(?!Shared\b)\w(?:[\w.@-]*\w)?/g,
    replace: () => '~',
  },
  {
    kind: 'home_path',
    level: 'strict',
    // C:\Users\<user>, C:/Users/<user> and the JSON-escaped C:\\Users\\<user>; a name with spaces
    // ("John Smith") only when a path separator follows it.
    pattern: /(?<![A-Za-z0-9])[A-Za-z]:(\\\\|\\|\/)Users\1(?!Shared\b)\w(?:[\w.@-]*\w)?(?:(?: \w(?:[\w.@-]*\w)?)+(?=[\\/]))?/gi,
    replace: () => '~',
  },
  {
    kind: 'ip_address',
    level: 'paranoid',
    pattern: /(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?!\.?\d)/g,
    keep: (match) => match === '127.0.0.1' || match === '0.0.0.0',
  },
  {
    kind: 'ip_address',
    level: 'paranoid',
    pattern: /(?<![0-9A-Za-z:.])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![0-9A-Za-z:])/g,
    keep: (match) => !isIpv6(match),
  },
  {
    kind: 'hostname',
    level: 'paranoid',
    // Starts at the first label only (not after `a.`), but right after a placeholder's `].` it may start.
    pattern: /(?<![\w-]|[\w-]\.)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}(?![\w-])/g,
    keep: (match) => !HOST_TLDS.has(match.slice(match.lastIndexOf('.') + 1).toLowerCase()),
  },
  {
    kind: 'high_entropy',
    level: 'paranoid',
    pattern: /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{32,}={0,2}(?![A-Za-z0-9+/=_-])/g,
    keep: (match) => !isHighEntropyToken(match.replace(/=+$/, '')),
  },
];

/**
 * Hides secrets in `text` before it is stored or exported.
 *
 * - standard: PEM private keys, credentials in URLs, provider tokens and JWTs, AWS access key ids,
 *   `Bearer`/`Authorization: Basic|Token` credentials, `-u user:pass` passwords, and the values of
 *   `password`/`passwd`/`passphrase` (kind `password`) and `secret`/`token`/`api_key`/`access_key`/
 *   `secret_key`/`private_key` (kind `secret`) assignments — the name stays, the value goes (`$VAR`,
 *   `${VAR}` and `****` values stay).
 * - strict: plus e-mail addresses and home directories (`/home/<user>`, `/Users/<user>`, `C:\Users\<user>`
 *   become `~`, dropping the user name).
 * - paranoid: plus IPv4/IPv6 addresses (not 127.0.0.1, 0.0.0.0, ::1), host names whose last label is a
 *   common top-level domain (`localhost` has none and stays), and leftover high-entropy tokens.
 *
 * Each span becomes one `[REDACTED:<kind>]`. Standard rules run first, then strict, then paranoid, so a
 * higher level only redacts more. The rules run in passes until the text stops changing (a replacement
 * can complete a new match, e.g. a home path inside a URL), so redacting the output again changes nothing.
 */
export function redact(text: string, level: RedactionLevel): RedactionResult {
  if (!REDACTION_LEVELS.includes(level)) throw new Error(redactionLevelSchema.safeParse(level).error?.issues[0]?.message);
  const counts = Object.fromEntries(REDACTION_KINDS.map((kind) => [kind, 0])) as Record<RedactionKind, number>;
  const rules = RULES.filter((rule) => LEVEL_RANK[rule.level] <= LEVEL_RANK[level]);
  let out = text;
  for (let pass = 0; pass < MAX_PASSES; pass += 1) {
    const before = out;
    for (const rule of rules) out = applyRule(out, rule, counts);
    if (out === before) break;
  }
  return { text: out, counts };
}

/** One rule over the text; a kept match gives up its text, so scanning resumes one character later. */
function applyRule(text: string, rule: Rule, counts: Record<RedactionKind, number>): string {
  const pattern = rule.pattern;
  let out = '';
  let copied = 0;
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    const groups = m.slice(1).map((group) => group ?? '');
    if (rule.keep?.(m[0], groups)) {
      pattern.lastIndex = m.index + 1;
      continue;
    }
    out += text.slice(copied, m.index) + (rule.replace ? rule.replace(groups) : placeholder(rule.kind));
    copied = m.index + m[0].length;
    counts[rule.kind] += 1;
  }
  return out + text.slice(copied);
}

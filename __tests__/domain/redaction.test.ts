import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import {
  isHighEntropyToken,
  redact,
  REDACTION_KINDS,
  REDACTION_LEVELS,
  redactionLevelSchema,
  type RedactionKind,
  type RedactionLevel,
} from '../../src/trajectories/model/redaction';

const R = (kind: RedactionKind) => `[REDACTED:${kind}]`;
const STANDARD_KINDS: RedactionKind[] = ['private_key', 'url_credentials', 'token', 'aws_access_key', 'password', 'secret'];
const higherOrEqual = (level: RedactionLevel) => REDACTION_LEVELS.slice(REDACTION_LEVELS.indexOf(level));

/** Counts with only the given kinds non-zero. */
function countsOf(nonZero: Partial<Record<RedactionKind, number>>): Record<RedactionKind, number> {
  return Object.fromEntries(REDACTION_KINDS.map((k) => [k, nonZero[k] ?? 0])) as Record<RedactionKind, number>;
}

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
const GH = 'ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5';
const PEM = ['-----BEGIN RSA PRIVATE KEY-----', 'MIIEowIBAAKCAQEA7bq3xS2g', 'kT9d0Zq1Lr+3/xw==', '-----END RSA PRIVATE KEY-----'];

// [level that first redacts it, input, output, kind]
const ONE_SPAN: [RedactionLevel, string, string, RedactionKind][] = [
  ['standard', `key: ${PEM.join('\n')}\nnext`, `key: ${R('private_key')}\nnext`, 'private_key'],
  ['standard', `{"key":"${PEM.join('\\n')}"}`, `{"key":"${R('private_key')}"}`, 'private_key'],
  ['standard', `${PEM.slice(0, 3).join('\n')}\n... (truncated)`, `${R('private_key')}\n... (truncated)`, 'private_key'],
  ['standard', '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----', R('private_key'), 'private_key'],
  ['standard', 'AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE', `AWS_ACCESS_KEY_ID=${R('aws_access_key')}`, 'aws_access_key'],
  ['standard', 'temporary id ASIAY34FZKBOKMUTVV7A expires', `temporary id ${R('aws_access_key')} expires`, 'aws_access_key'],
  ['standard', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', `aws_secret_access_key = ${R('secret')}`, 'secret'],
  ['standard', `export GITHUB_TOKEN=${GH}`, `export GITHUB_TOKEN=${R('token')}`, 'token'],
  ['standard', 'oauth gho_16C7e42F292c6912E7710c838347Ae178B4a,', `oauth ${R('token')},`, 'token'],
  ['standard', '(ghs_16C7e42F292c6912E7710c838347Ae178B4a)', `(${R('token')})`, 'token'],
  ['standard', 'ghu_16C7e42F292c6912E7710c838347Ae178B4a', R('token'), 'token'],
  ['standard', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz', R('token'), 'token'],
  ['standard', 'client = OpenAI(key="sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z")', `client = OpenAI(key="${R('token')}")`, 'token'],
  ['standard', 'x-api: sk-ant-api03-Zk9_xY8wV7uT6sR5qP4oN3mL2kJ1iH0g', `x-api: ${R('token')}`, 'token'],
  ['standard', 'slack xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx', `slack ${R('token')}`, 'token'],
  ['standard', 'gitlab glpat-xxxxxxxxxxxxxxxxxxxx1', `gitlab ${R('token')}`, 'token'],
  ['standard', '//registry/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789', `//registry/:_authToken=${R('token')}`, 'token'],
  ['standard', 'HF hf_abcdefghijklmnopqrstuvwxyzABCDEF0123', `HF ${R('token')}`, 'token'],
  ['standard', 'key=AIzaSyA-abcdefghijklmnopqrstuvwxyz01234', `key=${R('token')}`, 'token'],
  ['standard', 'stripe sk_live_51Hx9aZ2eZvKYlo2C0a1b2c3d', `stripe ${R('token')}`, 'token'],
  ['standard', `cookie: session=${JWT};`, `cookie: session=${R('token')};`, 'token'],
  ['standard', 'Authorization: Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0', `Authorization: Bearer ${R('token')}`, 'token'],
  ['standard', 'Authorization: Basic YWRtaW46aHVudGVyMg==', `Authorization: Basic ${R('token')}`, 'token'],
  ['standard', 'Authorization: Token 0123456789abcdef', `Authorization: Token ${R('token')}`, 'token'],
  ['standard', 'DB_PASSWORD=hunter2', `DB_PASSWORD=${R('password')}`, 'password'],
  ['standard', '{"username": "bob", "password": "it\'s a secret"}', `{"username": "bob", "password": "${R('password')}"}`, 'password'],
  ['standard', 'passwd: s3cret!', `passwd: ${R('password')}`, 'password'],
  ['standard', 'mysqladmin --password hunter22 status', `mysqladmin --password ${R('password')} status`, 'password'],
  ['standard', 'curl -u admin:hunter2 https://x', `curl -u admin:${R('password')} https://x`, 'password'],
  ['standard', '"text": "export API_KEY=\\"abc123\\""', `"text": "export API_KEY=\\"${R('secret')}\\""`, 'secret'],
  ['standard', 'GET /cb?code=1&access_token=abc123&x=1', `GET /cb?code=1&access_token=${R('secret')}&x=1`, 'secret'],
  ['standard', 'client_secret: "correct horse battery"', `client_secret: "${R('secret')}"`, 'secret'],
  ['standard', 'X-Api-Key: 4c1f0e9d8c7b6a5f', `X-Api-Key: ${R('secret')}`, 'secret'],
  ['standard', 'postgres://app:S3cr3t@db:5432/app', `postgres://${R('url_credentials')}@db:5432/app`, 'url_credentials'],
  ['standard', 'git clone https://x-access-token:p@ss@gitea:3000/o/r', `git clone https://${R('url_credentials')}@gitea:3000/o/r`, 'url_credentials'],
  ['strict', 'contact Jane.Doe+ci@mail.example.co.uk today', `contact ${R('email')} today`, 'email'],
  ['strict', 'cd /home/alice/src/app && ls', 'cd ~/src/app && ls', 'home_path'],
  ['strict', 'at /Users/bob.smith/Library/Logs', 'at ~/Library/Logs', 'home_path'],
  ['strict', 'C:\\Users\\Carol\\AppData\\x.log', '~\\AppData\\x.log', 'home_path'],
  ['strict', '{"cwd":"C:\\\\Users\\\\carol\\\\repo"}', '{"cwd":"~\\\\repo"}', 'home_path'],
  ['strict', 'HOME=/home/dave', 'HOME=~', 'home_path'],
  ['strict', 'C:\\Users\\John Smith\\Desktop', '~\\Desktop', 'home_path'],
  ['strict', 'PATH=/usr/bin:/home/erin/.cargo/bin', 'PATH=/usr/bin:~/.cargo/bin', 'home_path'],
  ['paranoid', 'ssh build-01.corp.example.com', `ssh ${R('hostname')}`, 'hostname'],
  ['paranoid', 'GET https://api.github.com/repos', `GET https://${R('hostname')}/repos`, 'hostname'],
  ['paranoid', 'listening on 10.0.12.7:8080', `listening on ${R('ip_address')}:8080`, 'ip_address'],
  ['paranoid', 'peer 2001:db8::8a2e:370:7334 up', `peer ${R('ip_address')} up`, 'ip_address'],
  ['paranoid', 'peer fe80:0:0:0:202:b3ff:fe1e:8329', `peer ${R('ip_address')}`, 'ip_address'],
  ['paranoid', 'HEAD 9fceb02d0ae598e95dc970b74767f19372d61af8', `HEAD ${R('high_entropy')}`, 'high_entropy'],
  ['paranoid', 'blob Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MEFCQ0RFRkdISUpL==', `blob ${R('high_entropy')}`, 'high_entropy'],
];

describe('redact: one span per kind', () => {
  test.each(ONE_SPAN)('%s redacts %p', (first, input, output, kind) => {
    for (const level of higherOrEqual(first)) {
      expect(redact(input, level)).toEqual({ text: output, counts: countsOf({ [kind]: 1 }) });
    }
  });

  test.each(ONE_SPAN.filter(([first]) => first !== 'standard'))('below %s, %p is left as it is', (first, input) => {
    for (const level of REDACTION_LEVELS.slice(0, REDACTION_LEVELS.indexOf(first))) {
      expect(redact(input, level)).toEqual({ text: input, counts: countsOf({}) });
    }
  });
});

// [text, the highest level at which it still survives untouched]
const NEAR_MISSES: [string, RedactionLevel][] = [
  ['HEAD is now at 9fceb02 Merge pull request #42', 'paranoid'],
  ['HEAD 9fceb02d0ae598e95dc970b74767f19372d61af8', 'strict'],
  ['request 550e8400-e29b-41d4-a716-446655440000 done', 'paranoid'],
  ['run task-sk-list-for-release-2024-final', 'paranoid'],
  ['sk-learning-rate-scheduler-config', 'paranoid'],
  ['Please enter your password to continue.', 'paranoid'],
  ['The password field is required', 'paranoid'],
  ['Password:', 'paranoid'],
  ['bumped typescript from 5.8.3 to 5.9.2', 'paranoid'],
  ['edit /usr/local/etc/nginx.conf and ./src/index.ts', 'paranoid'],
  ['"max_tokens": 4096, "tokens": 1234, token_count=512', 'paranoid'],
  ['PASSWORD=$DB_PASSWORD password: ${SECRET} password=********', 'paranoid'],
  ['Bearer authentication is configured', 'paranoid'],
  ['git clone git@github.com:acme/app.git', 'strict'],
  ['npm i lodash@4.17.21 @types/bun@1.4.4', 'paranoid'],
  ['http://localhost:3000/health and 127.0.0.1 and ::1', 'paranoid'],
  ['logger.info("x"); os.path.join(a); pattern.test(s); README.md', 'paranoid'],
  ['at 12:30:45 in std::vector, Foo::bar, aa:bb:cc:dd:ee:ff', 'paranoid'],
  ['/Users/Shared/build.log', 'paranoid'],
  ['very_long_snake_case_identifier_name_with_digits_2', 'paranoid'],
  ['mail ops@example.com', 'standard'],
  ['at 10.1.2.3', 'strict'],
];

describe('redact: near misses', () => {
  test.each(NEAR_MISSES)('%p survives up to %s', (text, highest) => {
    for (const level of REDACTION_LEVELS.slice(0, REDACTION_LEVELS.indexOf(highest) + 1)) {
      expect(redact(text, level)).toEqual({ text, counts: countsOf({}) });
    }
  });
});

describe('redact: realistic snippets', () => {
  const ENV = [
    '# production settings',
    'NODE_ENV=production',
    'DATABASE_URL=postgres://app:Sup3rS3cret@db.internal:5432/app',
    'REDIS_URL=redis://localhost:6379',
    'OPENAI_API_KEY=sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z',
    'SESSION_SECRET="correct horse battery staple"',
    'ADMIN_EMAIL=ops@example.com',
  ].join('\n');

  test('.env file at standard and strict', () => {
    const standard = ENV.replace('app:Sup3rS3cret', R('url_credentials'))
      .replace(/sk-proj-\S+/, R('token'))
      .replace('correct horse battery staple', R('secret'));
    expect(redact(ENV, 'standard')).toEqual({ text: standard, counts: countsOf({ url_credentials: 1, token: 1, secret: 1 }) });
    expect(redact(ENV, 'strict').text).toBe(standard.replace('ops@example.com', R('email')));
    expect(redact(ENV, 'paranoid').text).toContain(`postgres://${R('url_credentials')}@${R('hostname')}:5432/app`);
  });

  test('curl command', () => {
    const curl =
      `$ curl -sS -u admin:hunter2 -H "Authorization: Bearer ${JWT}" -H 'X-Api-Key: 4c1f0e9d8c7b6a5f' ` +
      '"https://api.example.com/v1/runs?token=abc123def456&limit=10"';
    expect(redact(curl, 'standard').text).toBe(
      `$ curl -sS -u admin:${R('password')} -H "Authorization: Bearer ${R('token')}" -H 'X-Api-Key: ${R('secret')}' ` +
        `"https://api.example.com/v1/runs?token=${R('secret')}&limit=10"`,
    );
  });

  test('GitHub Actions log', () => {
    const log = [
      '2024-05-01T12:00:01.1234567Z ##[group]Run actions/checkout@v4',
      '2024-05-01T12:00:02.0000000Z git config url."https://x-access-token:ghs_16C7e42F292c6912E7710c838347Ae178B4a@github.com/".insteadOf',
      '2024-05-01T12:00:04.0000000Z npm ERR! 401 - GET https://registry.npmjs.org/@acme%2fsdk - authentication token not provided',
      '2024-05-01T12:00:05.0000000Z Working directory: /home/runner/work/app/app',
    ].join('\n');
    const strict = redact(log, 'strict');
    expect(strict.text).toBe(
      log.replace('x-access-token:ghs_16C7e42F292c6912E7710c838347Ae178B4a', R('url_credentials')).replace('/home/runner', '~'),
    );
    expect(strict.counts).toEqual(countsOf({ url_credentials: 1, home_path: 1 }));
    expect(redact(log, 'paranoid').counts).toEqual(countsOf({ url_credentials: 1, home_path: 1, hostname: 2 }));
  });
});

describe('isHighEntropyToken', () => {
  const cases: [string, boolean][] = [
    ['9fceb02d0ae598e95dc970b74767f19372d61af8', true],
    ['d41d8cd98f00b204e9800998ecf8427e', true],
    ['9fceb02d0ae598e95dc970b74767f19', false],
    ['deadbeefdeadbeefdeadbeefdeadbeefdeadbeef', false],
    ['wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY', true],
    ['abcdefghijklmnopqrstuvwxyz0123456789', false],
    ['AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAaa11', false],
  ];
  test.each(cases)('%p → %p', (token, expected) => {
    expect(isHighEntropyToken(token)).toBe(expected);
  });
});

describe('redaction level input', () => {
  test('an unknown level names the allowed levels', () => {
    expect(() => redact('x', 'loose' as RedactionLevel)).toThrow('redaction level must be one of standard, strict, paranoid (got "loose")');
    expect(() => redact('x', 'toString' as RedactionLevel)).toThrow('redaction level must be one of');
    expect(redactionLevelSchema.safeParse('strict')).toEqual({ success: true, data: 'strict' });
  });
});

const alnum = (min: number, max: number) => fc.stringMatching(new RegExp(`^[A-Za-z0-9]{${min},${max}}$`));
const withDigit = (arb: fc.Arbitrary<string>) => fc.tuple(arb, fc.integer({ min: 0, max: 9 }), arb).map(([a, d, b]) => `${a}${d}${b}`);

/** [first level that hides it, arbitrary of (text containing the secret, the secret)] */
const SECRETS: [string, RedactionLevel, fc.Arbitrary<[string, string]>][] = [
  ['github', 'standard', fc.tuple(fc.constantFrom('ghp_', 'gho_', 'ghs_', 'ghu_'), alnum(36, 40)).map(([p, s]) => [p + s, p + s])],
  ['github_pat', 'standard', fc.tuple(alnum(22, 22), alnum(59, 59)).map(([a, b]) => `github_pat_${a}_${b}`).map((s) => [s, s])],
  ['openai', 'standard', fc.tuple(fc.constantFrom('sk-', 'sk-proj-', 'sk-ant-api03-'), withDigit(alnum(10, 30))).map(([p, s]) => [p + s, p + s])],
  ['slack', 'standard', fc.tuple(fc.constantFrom('a', 'b', 'p', 'r', 's'), alnum(24, 30)).map(([t, s]) => `xox${t}-1234-${s}`).map((s) => [s, s])],
  ['aws id', 'standard', fc.tuple(fc.constantFrom('AKIA', 'ASIA'), fc.stringMatching(/^[A-Z0-9]{16}$/)).map(([p, s]) => [p + s, p + s])],
  ['aws secret', 'standard', fc.stringMatching(/^[A-Za-z0-9/+]{40}$/).map((s) => [`aws_secret_access_key = ${s}`, s])],
  ['jwt', 'standard', fc.tuple(alnum(10, 40), alnum(10, 60), alnum(20, 43)).map(([a, b, c]) => `eyJ${a}.eyJ${b}.${c}`).map((s) => [s, s])],
  ['bearer', 'standard', withDigit(alnum(10, 40)).map((s) => [`Authorization: Bearer ${s}`, s])],
  ['password', 'standard', fc.tuple(fc.constantFrom('DB_PASSWORD=', 'password: ', '"password": "', '--password '), fc.stringMatching(/^[A-Za-z0-9!#%+./@^_~-]{12,24}$/)).map(([n, v]) => [n + v, v])],
  ['api key', 'standard', fc.tuple(fc.constantFrom('API_KEY=', 'apiKey: ', 'x-api-key: '), alnum(16, 40)).map(([n, v]) => [n + v, v])],
  ['url', 'standard', fc.tuple(fc.constantFrom('https', 'postgres', 'redis'), alnum(3, 10), fc.stringMatching(/^[A-Za-z0-9!$*~_.-]{12,24}$/)).map(([s, u, p]) => [`${s}://${u}:${p}@db.example.com/x`, p])],
  ['pem', 'standard', fc.array(fc.stringMatching(/^[A-Za-z0-9+/]{64}$/), { minLength: 1, maxLength: 4 }).map((lines) => [`-----BEGIN PRIVATE KEY-----\n${lines.join('\n')}\n-----END PRIVATE KEY-----`, lines.join('\n')])],
  ['email', 'strict', fc.tuple(fc.stringMatching(/^[a-z][a-z0-9._+-]{5,15}$/), fc.stringMatching(/^[a-z0-9]{3,10}$/)).map(([l, d]) => `${l}@${d}.com`).map((s) => [s, s])],
  ['home', 'strict', fc.tuple(fc.constantFrom('/home/', '/Users/', 'C:\\Users\\'), fc.stringMatching(/^[a-z][a-z0-9_-]{7,15}$/)).map(([h, u]) => [`${h}${u}${h.endsWith('\\') ? '\\' : '/'}proj`, u])],
  ['ipv4', 'paranoid', fc.ipV4().filter((ip) => ip !== '0.0.0.0' && ip !== '127.0.0.1').map((ip) => [ip, ip])],
  ['ipv6', 'paranoid', fc.array(fc.stringMatching(/^[0-9a-f]{1,4}$/), { minLength: 8, maxLength: 8 }).map((g) => [g.join(':'), g.join(':')])],
  ['hostname', 'paranoid', fc.tuple(fc.stringMatching(/^[a-z][a-z0-9-]{2,10}[a-z0-9]$/), fc.constantFrom('com', 'internal', 'io', 'corp')).map(([h, t]) => `${h}.corp.${t}`).map((s) => [s, s])],
  ['hex', 'paranoid', fc.stringMatching(/^[0-9a-f]{40}$/).filter((s) => isHighEntropyToken(s)).map((s) => [s, s])],
];

const SEPARATOR = fc.constantFrom(' ', '\n', '\t', ' \r\n');

describe('redact: properties', () => {
  test.each(SECRETS)('a %s secret in any context is gone at every level from %s up', (_name, first, secret) => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), SEPARATOR, secret, SEPARATOR, fc.string({ maxLength: 30 }), (pre, s1, [text, hidden], s2, post) => {
        for (const level of higherOrEqual(first)) expect(redact(pre + s1 + text + s2 + post, level).text).not.toContain(hidden);
      }),
    );
  });

  const secretText = fc.tuple(fc.string({ maxLength: 20 }), fc.oneof(...SECRETS.map(([, , arb]) => arb.map(([t]) => t))), fc.string({ maxLength: 20 })).map((p) => p.join(' '));
  const fragments = fc.constantFrom(
    ...['/home/', 'C:\\Users\\', '@', ':', '::', '.com', 'password=', 'token: ', '"', '\\', '[REDACTED:token]', 'Bearer '],
    ...['https://', 'a:b@', 'ghp_', GH, '1.2.3.4', '.', '-', ' ', '\n', 'x', '-u ', '$X', '~', 'sk-', 'd41d8cd98f00b204e9800998ecf8427e'],
  );
  const anyText = fc.oneof(fc.string({ maxLength: 80 }), secretText, fc.array(fragments, { maxLength: 20 }).map((f) => f.join('')));

  test.each(REDACTION_LEVELS.map((l) => [l]))('%s is idempotent: a second pass changes and counts nothing', (level) => {
    fc.assert(
      fc.property(anyText, (text) => {
        const once = redact(text, level).text;
        expect(redact(once, level)).toEqual({ text: once, counts: countsOf({}) });
      }),
    );
  });

  // Inputs where a replacement completed a new match before redaction ran to a fixed point.
  const REGRESSIONS = [
    'password=Bearer Bearer d41d8cd98f00b204e9800998ecf8427e',
    'https://password=/home/\\@',
    '/home//home/\\',
    'Bearer C:\\Users\\alice/home/d41d8cd98f00b204e9800998ecf8427e',
    'https://::/home/a:b@',
    '1.2.3.4Bearer 1.2.3.41.2.3.4',
  ];
  test.each(REGRESSIONS.map((t) => [t]))('%p: a second pass changes nothing at any level', (text) => {
    for (const level of REDACTION_LEVELS) {
      const once = redact(text, level).text;
      expect(redact(once, level)).toEqual({ text: once, counts: countsOf({}) });
    }
  });

  test('a higher level redacts on top of the lower one: no fewer standard spans, lower output re-redacted gives the same text', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const results = REDACTION_LEVELS.map((level) => redact(text, level));
        for (const [i, result] of results.entries()) {
          for (const kind of STANDARD_KINDS) expect(result.counts[kind]).toBeGreaterThanOrEqual(results[0]?.counts[kind] ?? Infinity);
          const level = REDACTION_LEVELS[i] as RedactionLevel;
          expect(redact(results[0]?.text ?? '', level).text).toBe(result.text);
        }
      }),
    );
  });

  test('text with nothing secret in it comes back unchanged', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z ,\n]{0,80}$/), (text) => {
        for (const level of REDACTION_LEVELS) expect(redact(text, level)).toEqual({ text, counts: countsOf({}) });
      }),
    );
  });

  test('a token is replaced by exactly one placeholder, nothing more', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z ]{0,20}$/), SECRETS[0]![2], fc.stringMatching(/^[a-z ]{0,20}$/), (pre, [token], post) => {
        expect(redact(`${pre} ${token} ${post}`, 'standard').text).toBe(`${pre} ${R('token')} ${post}`);
      }),
    );
  });
});

import { describe, expect, test } from 'bun:test';
import { FrameReader, fatalError, isStartupDone, lastReadyStatus, MAX_MESSAGE_BYTES, MAX_STARTUP_BYTES, PROTOCOL_3, passwordMessage, requestStatement, SSL_REQUEST, startupMessage, WireError } from '../../src/pglite-server/wire';

const startup = (code = 196608, body = 'user\0postgres\0database\0postgres\0\0') => {
  const bytes = Buffer.alloc(8 + body.length);
  bytes.writeInt32BE(8 + body.length, 0);
  bytes.writeInt32BE(code, 4);
  bytes.write(body, 8, 'latin1');
  return bytes;
};
const message = (type: string, body: string | Buffer = '') => {
  const payload = typeof body === 'string' ? Buffer.from(body, 'latin1') : body;
  const bytes = Buffer.alloc(5 + payload.length);
  bytes[0] = type.charCodeAt(0);
  bytes.writeInt32BE(4 + payload.length, 1);
  payload.copy(bytes, 5);
  return bytes;
};
const started = () => {
  const reader = new FrameReader();
  reader.started();
  return reader;
};

describe('FrameReader', () => {
  test('the first message is a startup message, whatever its code; SSL requests come as such', () => {
    const reader = new FrameReader();
    const [ssl] = reader.push(startup(SSL_REQUEST, ''));
    expect(ssl).toEqual({ kind: 'startup', code: SSL_REQUEST, bytes: new Uint8Array(startup(SSL_REQUEST, '')) });
    const frames = reader.push(startup());
    expect(frames).toHaveLength(1);
    expect(frames[0]?.kind).toBe('startup');
    expect(Buffer.from(frames[0]?.bytes as Uint8Array).equals(startup())).toBe(true);
  });

  test('after the startup, typed messages; those the client waits on end a request', () => {
    const reader = started();
    const stream = Buffer.concat([message('P', 'stmt\0SELECT 1\0\0\0'), message('B', '\0\0\0\0\0\0\0\0'), message('D', 'P\0'), message('E', '\0\0\0\0\0'), message('S'), message('Q', 'SELECT 1\0'), message('p', 'secret\0')]);
    const frames = reader.push(stream);
    expect(frames.map((f) => (f.kind === 'message' ? `${f.type}:${f.endsRequest}` : f.kind))).toEqual(['P:false', 'B:false', 'D:false', 'E:false', 'S:true', 'Q:true', 'p:true']);
    expect(Buffer.concat(frames.map((f) => f.bytes)).equals(stream)).toBe(true);
  });

  test('a message cut anywhere, even byte by byte, comes out whole and once', () => {
    const big = message('Q', Buffer.alloc(300_000, 0x61));
    const stream = Buffer.concat([message('S'), big, message('X')]);
    for (const piece of [1, 3, 4, 5, 7, 65_536]) {
      const reader = started();
      const frames = [];
      for (let at = 0; at < stream.length; at += piece) frames.push(...reader.push(stream.subarray(at, at + piece)));
      expect(frames.map((f) => (f.kind === 'message' ? f.type : '?'))).toEqual(['S', 'Q', 'X']);
      expect(Buffer.from(frames[1]?.bytes as Uint8Array).equals(big)).toBe(true);
    }
  });

  test('lengths no client may send are refused before anything is kept for them', () => {
    const tooLong = Buffer.from([0x51, 0x7f, 0xff, 0xff, 0xff]);
    expect(() => started().push(tooLong)).toThrow(WireError);
    expect(() => started().push(tooLong)).toThrow(`a message of ${0x7fffffff} bytes (4 to ${MAX_MESSAGE_BYTES} allowed)`);
    expect(() => started().push(Buffer.from([0x51, 0xff, 0xff, 0xff, 0xf0]))).toThrow('a message of -16 bytes');
    expect(() => started().push(Buffer.from([0x51, 0, 0, 0, 3]))).toThrow('a message of 3 bytes');
    const hugeStartup = Buffer.alloc(8);
    hugeStartup.writeInt32BE(MAX_STARTUP_BYTES + 1, 0);
    expect(() => new FrameReader().push(hugeStartup)).toThrow(`a startup message of ${MAX_STARTUP_BYTES + 1} bytes (8 to ${MAX_STARTUP_BYTES} allowed)`);
    expect(() => new FrameReader().push(Buffer.from([0, 0, 0, 4, 0, 0, 0, 0]))).toThrow('a startup message of 4 bytes');
  });

  test('an incomplete message waits for the rest', () => {
    const reader = started();
    expect(reader.push(message('Q', 'SELECT 1\0').subarray(0, 6))).toEqual([]);
    expect(reader.push(message('Q', 'SELECT 1\0').subarray(6))).toHaveLength(1);
  });
});

describe('lastReadyStatus', () => {
  const ready = (status: string) => message('Z', status);
  test('the status of the last ReadyForQuery, or null when there is none', () => {
    expect(lastReadyStatus(Buffer.concat([message('1'), message('C', 'SELECT 1\0'), ready('T')]))).toBe('T');
    expect(lastReadyStatus(Buffer.concat([ready('T'), message('C', 'COMMIT\0'), ready('I')]))).toBe('I');
    expect(lastReadyStatus(Buffer.concat([message('1'), message('2')]))).toBeNull();
    expect(lastReadyStatus(new Uint8Array())).toBeNull();
  });
  test('a malformed answer ends the reading instead of looping', () => {
    expect(lastReadyStatus(Buffer.from([0x5a, 0, 0, 0, 0, 0x49]))).toBeNull();
  });
});

test('fatalError is a FATAL ErrorResponse with the SQLSTATE and the message', () => {
  const bytes = Buffer.from(fatalError('08P01', 'bad length'));
  expect(String.fromCharCode(bytes[0] as number)).toBe('E');
  expect(bytes.readInt32BE(1)).toBe(bytes.length - 1);
  expect(bytes.subarray(5).toString('utf8')).toBe('SFATAL\0VFATAL\0C08P01\0Mbad length\0\0');
});

test('requestStatement names the statement of a Parse or a simple Query, cut short', () => {
  expect(requestStatement([message('P', 'stmt1\0SELECT $1::int\0\0\0'), message('B', '\0\0'), message('S')])).toBe('SELECT $1::int');
  expect(requestStatement([message('B', '\0\0'), message('E', '\0\0\0\0\0'), message('S')])).toBeNull();
  expect(requestStatement([message('Q', 'begin\0')])).toBe('begin');
  expect(requestStatement([message('Q', `${'x'.repeat(500)}\0`)], 10)).toBe('x'.repeat(10));
  expect(requestStatement([message('P', 'no-end')])).toBeNull();
});

test('the startup and password messages a client sends, read back as frames', () => {
  const reader = new FrameReader();
  const [first] = reader.push(startupMessage('postgres', 'db'));
  expect(first).toMatchObject({ kind: 'startup', code: PROTOCOL_3 });
  expect(Buffer.from(first?.bytes as Uint8Array).subarray(8).toString('utf8')).toBe('user\0postgres\0database\0db\0\0');
  reader.started();
  expect(reader.push(passwordMessage('pw'))).toEqual([{ kind: 'message', type: 'p', endsRequest: true, bytes: new Uint8Array(message('p', 'pw\0')) }]);
});

test('isStartupDone: AuthenticationOk first, an idle ReadyForQuery last', () => {
  const authOk = Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0]);
  const md5 = Buffer.from([0x52, 0, 0, 0, 12, 0, 0, 0, 5, 1, 2, 3, 4]);
  expect(isStartupDone(Buffer.concat([authOk, message('S', 'server_version\x0017.5\0'), message('Z', 'I')]))).toBe(true);
  expect(isStartupDone(Buffer.concat([md5, message('Z', 'I')]))).toBe(false);
  expect(isStartupDone(Buffer.concat([authOk, message('S', 'a\0b\0'), message('Z', 'T')]))).toBe(false);
  expect(isStartupDone(Buffer.concat([authOk, message('S', 'a\0b\0')]))).toBe(false);
});

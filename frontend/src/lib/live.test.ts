import { describe, expect, it } from 'vitest';
import { SseLines, keepTrying } from './live';

describe('SseLines', () => {
  it('finds the last event id and messages across chunk boundaries', () => {
    const lines = new SseLines();
    expect(lines.push('id: 4')).toEqual({ id: null, message: false });
    expect(lines.push('1\nevent: job\ndata: {"jobId":7}\n\n')).toEqual({ id: '41', message: true });
    expect(lines.push(': heartbeat\n\n')).toEqual({ id: null, message: false });
    expect(lines.push('id: 42\r\ndata: x\r\n\r\nid: 43\n')).toEqual({ id: '43', message: true });
  });
});

describe('keepTrying', () => {
  it('resumes after being dropped or capped, stops when the endpoint or the token is refused', () => {
    expect(keepTrying(200)).toBe(true);
    expect(keepTrying(429)).toBe(true);
    expect(keepTrying(503)).toBe(true);
    expect(keepTrying(401)).toBe(false);
    expect(keepTrying(404)).toBe(false);
  });
});

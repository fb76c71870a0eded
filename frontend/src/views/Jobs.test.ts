import { describe, expect, it } from 'vitest';
import { defaultMine } from './Jobs';

describe('defaultMine', () => {
  it("shows a user their own jobs and an operator everyone's", () => {
    expect(defaultMine(new URLSearchParams(''), false)).toBe(true);
    expect(defaultMine(new URLSearchParams(''), true)).toBe(false);
  });
  it('follows ?all=1 and ?mine=1 whoever asks', () => {
    expect(defaultMine(new URLSearchParams('all=1'), false)).toBe(false);
    expect(defaultMine(new URLSearchParams('mine=1'), true)).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { reservationTimeline } from './timeline';

const H = 3600_000;
const now = Date.UTC(2026, 11, 3, 10, 30);
const at = (hours: number) => new Date(now + hours * H).toISOString();

describe('reservationTimeline', () => {
  it('draws from an hour before now to the last end, with the now line and bars in place', () => {
    const t = reservationTimeline([
      { name: 'maint', startTime: at(2), endTime: at(4), nodes: 'gpu[001-004]' },
      { name: 'course', startTime: at(-0.5), durationSeconds: 3 * 3600, nodeCount: 2, partition: 'cpu' },
      { name: 'old', startTime: at(-30), endTime: at(-5) },
    ], now);
    expect(t.from).toBe(Date.UTC(2026, 11, 3, 9, 0));
    expect(t.to).toBe(t.from + 26 * H); // at least a day ahead of now, on the hour
    expect(t.bars.map((b) => b.name)).toEqual(['course', 'maint']); // by start; the ended one left out
    const [course, maint] = t.bars;
    expect(course.active).toBe(true);
    expect(course.nodes).toBe('2 nodes of cpu');
    expect(maint.active).toBe(false);
    expect(maint.left).toBeCloseTo((100 * 3.5) / 26);
    expect(maint.width).toBeCloseTo((100 * 2) / 26);
    expect(t.nowLeft).toBeCloseTo((100 * 1.5) / 26);
    expect(t.ticks.length).toBeGreaterThan(2);
    expect(t.ticks.length).toBeLessThanOrEqual(9);
    expect(t.ticks.every((k, i) => i === 0 || k.at > t.ticks[i - 1].at)).toBe(true);
  });

  it('reaches at most 14 days ahead: a bar past it is cut, one starting after it is later', () => {
    const t = reservationTimeline([
      { name: 'long', startTime: at(1), endTime: at(24 * 40) },
      { name: 'far', startTime: at(24 * 20), endTime: at(24 * 21) },
    ], now);
    expect(t.to - t.from).toBe(14 * 24 * H);
    expect(t.bars.map((b) => b.name)).toEqual(['long']);
    expect(t.bars[0].cutEnd).toBe(true);
    expect(t.bars[0].left + t.bars[0].width).toBeCloseTo(100);
    expect(t.later.map((r) => r.name)).toEqual(['far']);
  });

  it('with no reservations still shows a day ahead and where now is', () => {
    const t = reservationTimeline([], now);
    expect(t.bars).toEqual([]);
    expect(t.nowLeft).toBeGreaterThan(0);
    expect(t.nowLeft).toBeLessThan(10);
  });
});

import { describe, expect, it } from 'vitest';
import { isLight } from '../charts/LightChart';
import { gpuUsageOption } from './JobGpuUsage';

describe('gpuUsageOption', () => {
  it('draws one line per GPU, leaving out readings without utilisation', () => {
    const option = gpuUsageOption({ jobId: '42', points: [
      { time: '2026-12-05T10:00:00Z', node: 'n1', gpu: 0, utilization: 80 },
      { time: '2026-12-05T10:00:00Z', node: 'n1', gpu: 1, utilization: null },
      { time: '2026-12-05T10:00:10Z', node: 'n1', gpu: 0, utilization: 0 },
      { time: '2026-12-05T10:00:10Z', node: 'n2', gpu: 0, utilization: 50 },
    ] });
    expect(option.series.map((s) => s.name)).toEqual(['n1:0', 'n2:0']);
    expect(option.series[0].data).toEqual([[Date.parse('2026-12-05T10:00:00Z'), 80], [Date.parse('2026-12-05T10:00:10Z'), 0]]);
    expect(isLight(option)).toBe(true);
  });
});

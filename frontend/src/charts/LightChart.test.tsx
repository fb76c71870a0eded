// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/react';
import LightChart, { isLight } from './LightChart';
import { SseEvents } from '../views/JobOutput';

const hour = 3600_000;
const area = (name: string, values: number[]) => ({
  name, type: 'line', stack: 'gpus', step: 'end', areaStyle: { opacity: 0.8 }, color: '#123456',
  data: values.map((v, i) => [i * hour, v]),
});

describe('LightChart', () => {
  it('takes stacked areas over time and leaves bars and zooming charts to ECharts', () => {
    expect(isLight({ xAxis: { type: 'time' }, series: [area('idle', [1, 2])] })).toBe(true);
    expect(isLight({ xAxis: { type: 'category', data: ['a'] }, series: [{ name: 'x', type: 'bar', data: [1] }] })).toBe(false);
    expect(isLight({ xAxis: { type: 'time' }, dataZoom: [{}], series: [area('idle', [1])] })).toBe(false);
    expect(isLight({ xAxis: { type: 'time' }, series: [] })).toBe(false);
  });

  it('draws one filled path per series, stacked, with a legend naming each', () => {
    const option = { xAxis: { type: 'time' as const, min: 0, max: 3 * hour },
      series: [area('allocated', [2, 4, 4]), area('idle', [6, 4, 4])] } as Parameters<typeof LightChart>[0]['option'];
    const { getByTestId } = render(<LightChart option={option} height={200} label="GPUs" testId="c" />);
    const chart = getByTestId('c');
    expect(chart.getAttribute('aria-label')).toBe('GPUs');
    expect(chart.querySelectorAll('path')).toHaveLength(2);
    expect(chart.textContent).toContain('allocated');
    expect(chart.textContent).toContain('idle');
    // the stack tops out at 8 GPUs: the highest value tick is 8
    const ticks = [...chart.querySelectorAll('text')].map((t) => t.textContent);
    expect(ticks).toContain('8');
  });
});

describe('SseEvents', () => {
  it('reads events split across chunks, with their names, ids and data', () => {
    const events = new SseEvents();
    expect(events.push('event: output\nid: 11\ndata: {"offset":0,')).toEqual([]);
    expect(events.push('"text":"hi\\n"}\n\n: keep-alive\n\nevent: end\ndata: {"state":"COMPLETED"}\n\n')).toEqual([
      { event: 'output', id: '11', data: '{"offset":0,"text":"hi\\n"}' },
      { event: 'end', id: '11', data: '{"state":"COMPLETED"}' },
    ]);
  });
});

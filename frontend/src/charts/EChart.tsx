import { useEffect, useRef } from 'react';
import * as echarts from 'echarts/core';
import { BarChart, LineChart } from 'echarts/charts';
import { AriaComponent, DataZoomComponent, GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';
import type { EChartsCoreOption } from 'echarts/core';

// Only the pieces the dashboard draws, so this chunk (loaded on first chart) stays small.
echarts.use([BarChart, LineChart, GridComponent, TooltipComponent, LegendComponent, DataZoomComponent, AriaComponent, CanvasRenderer]);

/** One ECharts canvas that follows its option and its box's size; the default export so views can lazy() it. */
export default function EChart({ option, height, label, testId }: { option: EChartsCoreOption; height: number; label: string; testId: string }) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | null>(null);

  useEffect(() => {
    const el = box.current!;
    const instance = echarts.init(el, undefined, { renderer: 'canvas' });
    chart.current = instance;
    const observer = new ResizeObserver(() => instance.resize());
    observer.observe(el);
    return () => { observer.disconnect(); instance.dispose(); chart.current = null; };
  }, []);

  useEffect(() => {
    chart.current?.setOption({ aria: { enabled: true }, animation: false, ...option }, true);
  }, [option]);

  return <div ref={box} className="chart" style={{ height }} role="img" aria-label={label} data-testid={testId} />;
}

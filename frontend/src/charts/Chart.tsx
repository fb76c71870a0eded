import { lazy, Suspense } from 'react';
import type { EChartsCoreOption } from 'echarts/core';
import LightChart, { isLight } from './LightChart';

const EChart = lazy(() => import('./EChart'));

/**
 * A chart. Stacked lines and areas over time are drawn by {@link LightChart} (SVG, a few KB, no
 * download); anything else by ECharts, whose code loads on first use, outside the main bundle.
 */
export function Chart(props: { option: EChartsCoreOption; height?: number; label: string; testId: string }) {
  const height = props.height ?? 260;
  if (isLight(props.option)) {
    return <LightChart option={props.option} height={height} label={props.label} testId={props.testId} />;
  }
  return (
    <Suspense fallback={<div className="chart muted" style={{ height }}>Loading the chart…</div>}>
      <EChart {...props} height={height} />
    </Suspense>
  );
}

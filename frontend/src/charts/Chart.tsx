import { lazy, Suspense } from 'react';
import type { EChartsCoreOption } from 'echarts/core';

const EChart = lazy(() => import('./EChart'));

/** A chart whose code (ECharts) loads on first use, outside the main bundle. */
export function Chart(props: { option: EChartsCoreOption; height?: number; label: string; testId: string }) {
  const height = props.height ?? 260;
  return (
    <Suspense fallback={<div className="chart muted" style={{ height }}>Loading the chart…</div>}>
      <EChart {...props} height={height} />
    </Suspense>
  );
}

import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import type { Job, JobGpuUsageSeries } from '../api/types';
import { Chart } from '../charts/Chart';
import { formatDuration, isActive } from '../lib/format';

/** Each GPU's utilisation over time as one line per GPU (node:gpu), for {@link Chart}. */
export function gpuUsageOption(series: JobGpuUsageSeries) {
  const lines = new Map<string, [number, number][]>();
  for (const p of series.points) {
    if (p.utilization == null) continue;
    const name = `${p.node}:${p.gpu}`;
    if (!lines.has(name)) lines.set(name, []);
    lines.get(name)!.push([Date.parse(p.time), p.utilization]);
  }
  return {
    xAxis: { type: 'time' as const },
    yAxis: { name: '%' },
    series: [...lines.entries()].map(([name, data]) => ({ name, type: 'line' as const, data })),
  };
}

/**
 * The job's GPU use: mean and peak utilisation, peak memory, allocated-but-idle time, and a chart
 * of each GPU's utilisation from GET /jobs/{id}/gpu-usage (re-read while the job runs).
 */
export function JobGpuUsage({ job }: { job: Job }) {
  const id = job.id ?? String(job.jobId);
  const running = isActive(job.state);
  const series = useQuery({ queryKey: ['jobGpuUsage', id], queryFn: () => api.jobGpuUsage(id),
    refetchInterval: running ? 10_000 : false, enabled: job.gpuUsage != null });
  const option = useMemo(() => series.data ? gpuUsageOption(series.data) : null, [series.data]);
  const u = job.gpuUsage;
  if (!u) return null;
  const pct = (v?: number | null) => v == null ? '—' : `${v.toFixed(1)} %`;
  return (
    <div className="card" data-testid="job-gpu-usage">
      <h2>GPU use</h2>
      <dl className="facts">
        <dt>Utilisation</dt><dd data-testid="job-gpu-util">{pct(u.averageUtilization)} average, {pct(u.peakUtilization)} peak</dd>
        {u.peakMemoryMb != null && <><dt>Peak memory</dt><dd>{(u.peakMemoryMb / 1024).toFixed(1)} GiB on one GPU</dd></>}
        <dt>Allocated but idle</dt><dd data-testid="job-gpu-idle">
          {formatDuration(Math.round(u.idleGpuSeconds))} of {formatDuration(Math.round(u.gpuSeconds))} GPU-time</dd>
      </dl>
      {option && option.series.length > 0 && <Chart option={option} height={200}
        label={`GPU utilisation of job ${id} over time, per GPU`} testId="job-gpu-chart" />}
    </div>
  );
}

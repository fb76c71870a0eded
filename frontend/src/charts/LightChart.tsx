import { useEffect, useMemo, useRef, useState } from 'react';

/** The part of an ECharts option this chart draws: stacked lines or areas over a time axis. */
export interface LightOption {
  grid?: { left?: number; right?: number; top?: number; bottom?: number };
  xAxis: { type: 'time'; min?: number; max?: number };
  yAxis?: { name?: string };
  series: LightSeries[];
}

interface LightSeries {
  name: string;
  type: 'line';
  stack?: string;
  step?: 'end' | 'start' | false;
  color?: string;
  areaStyle?: { opacity?: number };
  data: [number, number][];
}

/**
 * Whether {@link LightChart} draws this option as ECharts would in the ways that matter here: only
 * line series (stacked or not, areas or not) over a time axis with [time, value] points. Anything
 * else goes to ECharts.
 */
export function isLight(option: unknown): option is LightOption {
  const o = option as Record<string, unknown> & { xAxis?: { type?: string }; series?: unknown[] };
  return !!o && !o.dataZoom && o.xAxis?.type === 'time' && Array.isArray(o.series) && o.series.length > 0
    && o.series.every((s) => {
      const x = s as { type?: string; data?: unknown[] };
      return x.type === 'line' && Array.isArray(x.data) && x.data.every((p) => Array.isArray(p) && p.length === 2);
    });
}

const AXIS = '#64748b';
const PALETTE = ['#2563eb', '#c2410c', '#3aa56a', '#6d28d9', '#b91c1c'];

/**
 * A few kilobytes of SVG instead of ECharts' hundreds: stacked (step) areas over time with a legend,
 * value ticks, hour ticks and a hover readout. The overview draws its GPU history with it, so its
 * first load need not fetch a charting library.
 */
export default function LightChart({ option, height, label, testId }: { option: LightOption; height: number; label: string; testId: string }) {
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(600);
  const [hover, setHover] = useState<number | null>(null);
  useEffect(() => {
    const el = box.current!;
    if (el.clientWidth > 0) setWidth(Math.max(120, el.clientWidth));
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => setWidth(Math.max(120, el.clientWidth)));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const g = { left: 40, right: 12, top: 30, bottom: 24, ...option.grid };
  const plotW = Math.max(10, width - g.left - g.right);
  const plotH = Math.max(10, height - g.top - g.bottom);
  const model = useMemo(() => build(option), [option]);
  const x = (t: number) => g.left + ((t - model.xMin) / Math.max(1, model.xMax - model.xMin)) * plotW;
  const y = (v: number) => g.top + plotH - (v / model.yMax) * plotH;

  const onMove = (e: React.MouseEvent<SVGSVGElement>) => {
    const rect = e.currentTarget.getBoundingClientRect();
    const t = model.xMin + ((e.clientX - rect.left - g.left) / plotW) * (model.xMax - model.xMin);
    let best: number | null = null;
    for (const time of model.times) if (best === null || Math.abs(time - t) < Math.abs(best - t)) best = time;
    setHover(best);
  };

  return (
    <div ref={box} className="chart light-chart" style={{ height, position: 'relative' }} role="img" aria-label={label} data-testid={testId}>
      <svg width={width} height={height} onMouseMove={onMove} onMouseLeave={() => setHover(null)}>
        <g fontSize="11" fill={AXIS}>
          {model.series.map((s, i) => {
            const lx = g.left + i * Math.min(110, plotW / model.series.length);
            return (
              <g key={s.name} transform={`translate(${lx},4)`}>
                <rect width="12" height="8" y="2" rx="2" fill={s.color} />
                <text x="16" y="10">{s.name}</text>
              </g>
            );
          })}
          {model.yTicks.map((v) => (
            <g key={v}>
              <line x1={g.left} x2={g.left + plotW} y1={y(v)} y2={y(v)} stroke="#e2e8f0" />
              <text x={g.left - 6} y={y(v) + 4} textAnchor="end">{v}</text>
            </g>
          ))}
          {option.yAxis?.name && <text x={4} y={g.top - 8}>{option.yAxis.name}</text>}
          {model.xTicks.filter((_, i, all) => all.length * 44 < plotW || i % Math.ceil((all.length * 44) / plotW) === 0).map((t) => (
            <text key={t} x={x(t)} y={height - 6} textAnchor="middle">{new Date(t).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}</text>
          ))}
        </g>
        {model.series.map((s) => (
          <path key={s.name} d={areaPath(s.lower, s.upper, x, y, s.step)} fill={s.color} fillOpacity={s.area ? s.opacity : 0}
            stroke={s.color} strokeWidth="1" />
        ))}
        {model.times.length < 3 && model.series.map((s) => s.upper.map(([t, v]) => (
          <circle key={`${s.name}-${t}`} cx={x(t)} cy={y(v)} r="3" fill={s.color} />
        )))}
        {hover !== null && <line x1={x(hover)} x2={x(hover)} y1={g.top} y2={g.top + plotH} stroke={AXIS} strokeDasharray="3 3" />}
      </svg>
      {hover !== null && (
        <div className="chart-tip" style={{ position: 'absolute', top: g.top, left: Math.min(x(hover) + 8, width - 150) }}>
          <strong>{new Date(hover).toLocaleString([], { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })}</strong>
          {model.series.map((s) => <div key={s.name}><span className="swatch" style={{ background: s.color }} /> {s.name}: {s.valueAt(hover)}</div>)}
        </div>
      )}
    </div>
  );
}

interface Drawn {
  name: string; color: string; area: boolean; opacity: number; step: boolean;
  lower: [number, number][]; upper: [number, number][]; valueAt: (t: number) => number;
}

function build(option: LightOption) {
  const times = [...new Set(option.series.flatMap((s) => s.data.map((p) => p[0])))].sort((a, b) => a - b);
  const stacks = new Map<string, Map<number, number>>();
  const series: Drawn[] = option.series.map((s, i) => {
    const values = new Map(s.data.map(([t, v]) => [t, Number(v) || 0]));
    const base = s.stack ? (stacks.get(s.stack) ?? new Map<number, number>()) : new Map<number, number>();
    const lower: [number, number][] = times.map((t) => [t, base.get(t) ?? 0]);
    const upper: [number, number][] = times.map((t) => [t, (base.get(t) ?? 0) + (values.get(t) ?? 0)]);
    if (s.stack) stacks.set(s.stack, new Map(upper));
    return {
      name: s.name, color: s.color ?? PALETTE[i % PALETTE.length], area: !!s.areaStyle, opacity: s.areaStyle?.opacity ?? 0.7,
      step: s.step === 'end', lower, upper, valueAt: (t: number) => values.get(t) ?? 0,
    };
  });
  const top = Math.max(1, ...series.flatMap((s) => s.upper.map((p) => p[1])));
  const step = niceStep(top / 4);
  const yMax = Math.ceil(top / step) * step;
  const yTicks = Array.from({ length: Math.round(yMax / step) + 1 }, (_, i) => i * step);
  const xMin = option.xAxis.min ?? times[0] ?? 0;
  const xMax = option.xAxis.max ?? times[times.length - 1] ?? xMin + 1;
  const hour = 3600_000;
  const every = Math.max(1, Math.ceil((xMax - xMin) / hour / 8)) * hour;
  const xTicks: number[] = [];
  for (let t = Math.ceil(xMin / every) * every; t <= xMax; t += every) xTicks.push(t);
  return { times, series, yMax, yTicks, xMin, xMax, xTicks };
}

/** 1, 2 or 5 times a power of ten, at least {@code raw} and at least 1 (GPUs are whole). */
function niceStep(raw: number): number {
  const power = 10 ** Math.floor(Math.log10(Math.max(1, raw)));
  return [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
}

function areaPath(lower: [number, number][], upper: [number, number][], x: (t: number) => number, y: (v: number) => number, step: boolean): string {
  if (!upper.length) return '';
  const line = (points: [number, number][]) => points.flatMap(([t, v], i) => {
    const here = `${x(t).toFixed(1)},${y(v).toFixed(1)}`;
    if (!step || i === 0) return [here];
    return [`${x(t).toFixed(1)},${y(points[i - 1][1]).toFixed(1)}`, here];
  });
  const top = line(upper);
  const bottom = line(lower).reverse();
  return `M${top.join('L')}L${bottom.join('L')}Z`;
}

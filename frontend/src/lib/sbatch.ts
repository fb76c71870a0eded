/** Reads #SBATCH directives as sbatch does: from the top, through comments and blank lines, stopping at the first command. */
export interface Directive { line: number; option: string; value: string | null; raw: string }

export function readDirectives(script: string): Directive[] {
  const out: Directive[] = [];
  const lines = script.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i].trim();
    if (i === 0 && text.startsWith('#!')) continue;
    if (text === '') continue;
    if (!text.startsWith('#')) break;
    const m = text.match(/^#SBATCH\s+(.*)$/);
    if (!m) continue;
    const body = m[1].replace(/\s+#.*$/, '').trim();
    let option: string, value: string | null = null;
    if (body.startsWith('--')) {
      const eq = body.indexOf('=');
      const sp = body.search(/\s/);
      if (eq > 0 && (sp < 0 || eq < sp)) { option = body.slice(0, eq); value = body.slice(eq + 1).trim(); }
      else if (sp > 0) { option = body.slice(0, sp); value = body.slice(sp).trim(); }
      else option = body;
    } else {
      const sm = body.match(/^(-[A-Za-z])\s*(.*)$/);
      if (!sm) { option = body; } else { option = sm[1]; value = sm[2].trim() || null; }
    }
    out.push({ line: i + 1, option, value, raw: lines[i] });
  }
  return out;
}

/** The sbatch command line equivalent to the form's fields (which win over directives). */
export function sbatchCommand(fields: Record<string, string | number | boolean | undefined>): string {
  const flag: Record<string, string> = {
    name: '--job-name', partition: '--partition', account: '--account', qos: '--qos', nodes: '--nodes',
    tasks: '--ntasks', cpusPerTask: '--cpus-per-task', memoryMb: '--mem', gpus: '--gpus',
    gpusPerNode: '--gpus-per-node', time: '--time', constraints: '--constraint', dependency: '--dependency',
    array: '--array',
  };
  const parts = ['sbatch'];
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === '' || value === false) continue;
    if (key === 'hold') { parts.push('--hold'); continue; }
    if (key === 'exclusive') { parts.push('--exclusive'); continue; }
    const f = flag[key];
    if (!f) continue;
    const v = key === 'memoryMb' ? `${value}M` : String(value);
    parts.push(`${f}=${/[\s'"]/.test(v) ? JSON.stringify(v) : v}`);
  }
  parts.push('script.sh');
  return parts.join(' ');
}

/** The #SBATCH options that set each form field, long (abbreviable, as sbatch reads them) and short. */
const OPTIONS_OF: Record<string, { long: string; short?: string }> = {
  name: { long: '--job-name', short: '-J' }, partition: { long: '--partition', short: '-p' },
  account: { long: '--account', short: '-A' }, qos: { long: '--qos', short: '-q' }, nodes: { long: '--nodes', short: '-N' },
  tasks: { long: '--ntasks', short: '-n' }, cpusPerTask: { long: '--cpus-per-task', short: '-c' }, memoryMb: { long: '--mem' },
  gpus: { long: '--gpus', short: '-G' }, gpusPerNode: { long: '--gpus-per-node' }, gpuType: { long: '--gpus' },
  time: { long: '--time', short: '-t' }, constraints: { long: '--constraint', short: '-C' },
  dependency: { long: '--dependency', short: '-d' }, array: { long: '--array', short: '-a' },
  hold: { long: '--hold', short: '-H' }, exclusive: { long: '--exclusive' },
};

/**
 * The script line whose directive sets the form field `field` (the last one, which wins as in
 * sbatch), with the option as written there; undefined when no directive sets it.
 */
export function directiveLineOf(script: string, field: string): { line: number; option: string } | undefined {
  const o = OPTIONS_OF[field];
  if (!o) return undefined;
  let found: Directive | undefined;
  for (const d of readDirectives(script)) {
    const isLong = d.option.startsWith('--') && d.option.length > 3 && o.long.startsWith(d.option)
      && (d.option === o.long || !Object.values(OPTIONS_OF).some((x) => x.long !== o.long && x.long.startsWith(d.option)));
    if (isLong || (o.short && d.option === o.short)) found = d;
  }
  return found && { line: found.line, option: found.option };
}

/** Expands a Slurm hostlist such as "gpu[001-004,007],cpu01" into host names. */
export function expandHostlist(list: string | null | undefined): string[] {
  if (!list) return [];
  const out: string[] = [];
  for (const part of splitTop(list)) {
    const m = part.match(/^([^[]*)\[([^\]]+)\](.*)$/);
    if (!m) { if (part) out.push(part); continue; }
    const [, prefix, ranges, rest] = m;
    for (const range of ranges.split(',')) {
      const [a, b] = range.split('-');
      if (b === undefined) { for (const tail of rest ? expandHostlist(rest) : ['']) out.push(prefix + a + tail); continue; }
      const width = a.length;
      for (let i = parseInt(a, 10); i <= parseInt(b, 10); i++) {
        const num = String(i).padStart(width, '0');
        for (const tail of rest ? expandHostlist(rest) : ['']) out.push(prefix + num + tail);
      }
    }
  }
  return out;
}

function splitTop(list: string): string[] {
  const parts: string[] = [];
  let depth = 0, start = 0;
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (c === '[') depth++;
    else if (c === ']') depth--;
    else if (c === ',' && depth === 0) { parts.push(list.slice(start, i).trim()); start = i + 1; }
  }
  parts.push(list.slice(start).trim());
  return parts.filter(Boolean);
}

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

/**
 * Compresses host names into a Slurm hostlist, "gpu[001-004,007],cpu01": names that differ only in
 * a trailing number of the same width share brackets. Each name appears once; the groups keep the
 * order in which their prefix first appears, the numbers in each are sorted.
 */
export function compressHostlist(names: readonly string[]): string {
  const groups = new Map<string, { prefix: string; width: number; numbers: number[] }>();
  const out: (string | { prefix: string; width: number; numbers: number[] })[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    if (!name || seen.has(name)) continue;
    seen.add(name);
    const m = name.match(/^(.*?)(\d+)$/);
    if (!m) { out.push(name); continue; }
    const key = `${m[1]}\u0000${m[2].length}`;
    let group = groups.get(key);
    if (!group) { group = { prefix: m[1], width: m[2].length, numbers: [] }; groups.set(key, group); out.push(group); }
    group.numbers.push(parseInt(m[2], 10));
  }
  return out.map((g) => {
    if (typeof g === 'string') return g;
    const pad = (n: number) => String(n).padStart(g.width, '0');
    const sorted = [...g.numbers].sort((a, b) => a - b);
    if (sorted.length === 1) return g.prefix + pad(sorted[0]);
    const ranges: string[] = [];
    for (let i = 0; i < sorted.length; i++) {
      let j = i;
      while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
      ranges.push(i === j ? pad(sorted[i]) : `${pad(sorted[i])}-${pad(sorted[j])}`);
      i = j;
    }
    return `${g.prefix}[${ranges.join(',')}]`;
  }).join(',');
}

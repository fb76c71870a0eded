import { QueryClient, QueryObserver } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { rereadAfterChange } from './reread';

describe('rereadAfterChange', () => {
  it('shows a change made while the first read was still on its way', async () => {
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const key = ['admin', 'users'];
    const stored = ['alice'];
    let reads = 0;
    let answerFirst: () => void = () => {};
    const observer = new QueryObserver<string[]>(client, {
      queryKey: key,
      // each read answers with what was stored when it began; the first only when the test lets it
      queryFn: async () => {
        reads += 1;
        const atStart = [...stored];
        if (reads === 1) await new Promise<void>((resolve) => { answerFirst = resolve; });
        return atStart;
      },
    });
    const seen: Array<string[] | undefined> = [];
    const unsubscribe = observer.subscribe((result) => seen.push(result.data));
    expect(reads).toBe(1); // the tab's first read, on its way

    stored.push('newcomer'); // the change, made before that read answered
    const reread = rereadAfterChange(client, { queryKey: key });
    answerFirst();
    await reread;

    expect(reads).toBe(2);
    expect(client.getQueryData(key)).toEqual(['alice', 'newcomer']);
    expect(seen.at(-1)).toEqual(['alice', 'newcomer']);
    unsubscribe();
  });

  it('drops only the first reads its filter picks, as the event stream asks', async () => {
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const state = { job: 'PENDING' };
    const reads = { job: 0, nodes: 0 };
    const gates: Array<() => void> = [];
    const watch = (key: 'job' | 'nodes') => new QueryObserver<string>(client, {
      queryKey: [key, '10'],
      queryFn: async () => {
        reads[key] += 1;
        const atStart = `${key} ${state.job}`;
        if (reads[key] === 1) await new Promise<void>((resolve) => { gates.push(resolve); });
        return atStart;
      },
    }).subscribe(() => {});
    const stops = [watch('job'), watch('nodes')];

    state.job = 'RUNNING'; // the job starts while its page is loading
    const reread = rereadAfterChange(client, { predicate: (q) => q.queryKey[0] === 'job' });
    gates.forEach((open) => open());
    await reread;

    expect(client.getQueryData(['job', '10'])).toBe('job RUNNING');
    expect(reads).toEqual({ job: 2, nodes: 1 });
    stops.forEach((stop) => stop());
  });
});

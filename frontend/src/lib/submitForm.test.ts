import { describe, expect, it } from 'vitest';
import type { Association } from '../api/types';
import { directiveLineOf } from './sbatch';
import {
  choicesOf, EMPTY_FORM, mergeMistakes, NO_SHEBANG, placeServerErrors, toSubmission, trialSummary, type Form,
} from './submitForm';

const form = (over: Partial<Form>): Form => ({ ...EMPTY_FORM, ...over });

describe('toSubmission', () => {
  it('leaves a field it cannot read out of the body, so the server still checks the rest', () => {
    const { body, mistakes } = toSubmission(form({ nodes: 'two', tasks: '4', time: 'soon', partition: ' cpu ' }));
    expect(body).toEqual({ script: EMPTY_FORM.script, tasks: 4, partition: 'cpu' });
    expect(mistakes).toEqual([
      { place: { field: 'nodes' }, message: 'Enter a whole number.' },
      { place: { field: 'time' }, message: expect.stringMatching(/Slurm time/) },
    ]);
  });

  it('refuses a script without #! on line 1, as sbatch does, and still sends it', () => {
    const { body, mistakes } = toSubmission(form({ script: '#SBATCH -p cpu\nsrun hostname\n' }));
    expect(mistakes).toEqual([{ place: { line: 1 }, message: NO_SHEBANG }]);
    expect(body.script).toBe('#SBATCH -p cpu\nsrun hostname\n');
    expect(toSubmission(form({ script: ' #!/bin/bash\n' })).mistakes).toHaveLength(1);
    expect(toSubmission(form({ script: '#!/bin/sh\ntrue\n' })).mistakes).toEqual([]);
  });
});

describe('placeServerErrors', () => {
  const script = '#!/bin/bash\n#SBATCH -A chemistry\n#SBATCH --ntasks=0\n#SBATCH --time=1:00:00\nsrun x\n';

  it('puts script:N on line N and a field the form sets under that field', () => {
    expect(placeServerErrors([
      { field: 'script:3', message: '--time: bad' },
      { field: 'timeLimitSeconds', message: 'too long' },
      { field: 'partition', message: "unknown partition 'nope'" },
    ], form({ time: '99:00:00', partition: 'nope' }))).toEqual([
      { place: { line: 3 }, message: '--time: bad' },
      { place: { field: 'time' }, message: 'too long' },
      { place: { field: 'partition' }, message: "unknown partition 'nope'" },
    ]);
  });

  it('puts an error on a field the form leaves empty on the directive that set it, not under the empty field', () => {
    expect(placeServerErrors([
      { field: 'tasks', message: 'must be at least 1' },
      { field: 'account', message: 'InvalidAccount' },
      { field: 'timeLimitSeconds', message: 'MaxWall' },
    ], form({ script }))).toEqual([
      { place: { line: 3 }, message: '--ntasks: must be at least 1' },
      { place: { line: 2 }, message: '-A: InvalidAccount' },
      { place: { line: 4 }, message: '--time: MaxWall' },
    ]);
  });

  it('keeps an error on an empty field without a directive under the field, and shows what has no input apart', () => {
    expect(placeServerErrors([
      { field: 'partition', message: 'is required: this cluster has no default partition' },
      { field: 'script', message: 'is 9000000 bytes long' },
      { field: 'workdir', message: 'must be absolute' },
      { field: 'hold', message: 'odd' },
    ], form({}))).toEqual([
      { place: { field: 'partition' }, message: 'is required: this cluster has no default partition' },
      { place: { field: 'script' }, message: 'is 9000000 bytes long' },
      { place: { other: 'workdir' }, message: 'must be absolute' },
      { place: { other: 'hold' }, message: 'odd' },
    ]);
  });
});

describe('mergeMistakes', () => {
  it('shows local and server mistakes together, one entry per line in line order, nothing twice', () => {
    const local = toSubmission(form({ script: '#SBATCH -p nope\n#SBATCH --time=soon\nsrun x\n', nodes: 'x' })).mistakes;
    const server = placeServerErrors([
      { field: 'script:2', message: '--time: invalid time' },
      { field: 'script:1', message: "--partition: unknown partition 'nope'" },
      { field: 'script:2', message: '--time: invalid time' },
      { field: 'qos', message: 'InvalidQOS' },
    ], form({ qos: 'gold' }));
    const placed = mergeMistakes(local, server);
    expect(placed.lines).toEqual([
      { line: 1, messages: [NO_SHEBANG, "--partition: unknown partition 'nope'"] },
      { line: 2, messages: ['--time: invalid time'] },
    ]);
    expect(placed.fields).toEqual({ nodes: ['Enter a whole number.'], qos: ['InvalidQOS'] });
    expect(placed.other).toEqual([]);
    expect(mergeMistakes([], [])).toEqual({ fields: {}, lines: [], other: [] });
  });
});

describe('directiveLineOf', () => {
  it('finds the last directive that sets a field, long, abbreviated or short, and tells --gpus from --gpus-per-node', () => {
    const s = '#!/bin/bash\n#SBATCH --gpus-per-node=2\n#SBATCH --gpus=4\n#SBATCH -t 5\n#SBATCH --job-n=x\nhostname\n#SBATCH -p late\n';
    expect(directiveLineOf(s, 'gpus')).toEqual({ line: 3, option: '--gpus' });
    expect(directiveLineOf(s, 'gpusPerNode')).toEqual({ line: 2, option: '--gpus-per-node' });
    expect(directiveLineOf(s, 'time')).toEqual({ line: 4, option: '-t' });
    expect(directiveLineOf(s, 'name')).toEqual({ line: 5, option: '--job-n' });
    expect(directiveLineOf(s, 'partition')).toBeUndefined(); // after the first command: not a directive
  });
});

describe('choicesOf', () => {
  const assoc = (account: string, user: string | null, qos: string[] = [], defaultQos: string | null = null): Association =>
    ({ id: account.length, account, user, qos, defaultQos });
  const list = [assoc('physics', 'ann', ['high', 'low'], 'low'), assoc('chem', 'ann'), assoc('bio', 'bob', ['x']), assoc('physics', null)];

  it("lists only the user's accounts, with their default, and the chosen account's QOS", () => {
    expect(choicesOf(list, 'ann', 'physics', 'physics', ['normal', 'high', 'low', 'x'])).toEqual({
      accounts: ['chem', 'physics'], defaultAccount: 'physics', qos: ['high', 'low'], defaultQos: 'low',
    });
  });

  it('reads the QOS of the default account when none is chosen; an empty list allows every QOS, normal by default', () => {
    expect(choicesOf(list, 'ann', '', 'chem', ['normal', 'high'])).toEqual({
      accounts: ['chem', 'physics'], defaultAccount: 'chem', qos: ['high', 'normal'], defaultQos: 'normal',
    });
    // A default account the user has no association with falls back on their first, as the server charges.
    expect(choicesOf(list, 'ann', '', 'bio', ['normal']).defaultAccount).toBe('chem');
    expect(choicesOf([], 'ann', '', null, ['normal'])).toEqual({ accounts: [], defaultAccount: null, qos: [], defaultQos: null });
  });
});

describe('trialSummary', () => {
  const now = Date.parse('2026-01-01T12:00:00Z');
  const opts = { now, formatTime: (iso: string) => iso, relativeTime: () => 'in 2.0 h' };

  it('says when and where it would start', () => {
    expect(trialSummary({ jobId: 0, startTime: '2026-01-01T14:00:00Z', nodes: 'cpu[001-002]', partition: 'cpu', processors: 8 }, opts))
      .toEqual({
        when: 'It would start in 2.0 h (at 2026-01-01T14:00:00Z), if the jobs ahead of it run to their time limits.',
        at: '2026-01-01T14:00:00Z', where: 'On cpu[001-002] in partition cpu, holding 8 CPUs.', why: null,
      });
    expect(trialSummary({ jobId: 0, startTime: '2026-01-01T12:00:00Z', nodes: 'cpu001', processors: 1 }, opts).when)
      .toBe('It would start at once (2026-01-01T12:00:00Z).');
  });

  it("says why it cannot start, with the dashboard's sentence for the reason it names", () => {
    const s = trialSummary({ jobId: 0, reason: 'it cannot run on the cluster as it is now (BadConstraints)' }, opts);
    expect(s.when).toBeNull();
    expect(s.why).toBe('No start time can be given: it cannot run on the cluster as it is now (BadConstraints). '
      + 'No node has the features it asks for (--constraint), so it cannot start; change its constraints.');
    expect(trialSummary({ jobId: 0, reason: 'it waits (SomethingNew)' }, opts).why).toBe('No start time can be given: it waits (SomethingNew).');
  });
});

// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/client';
import {
  auditChanges, fieldErrors, guaranteeChange, partitionQosRequest, partitionStateWarning, qosForm, qosRequest, reservationForm,
  reservationRequest, type PartitionView, type QosView,
} from './forms';

const gold: QosView = {
  name: 'gold', priority: 100, usageFactor: 2, maxWallSeconds: 86400, maxJobsPerUser: 10, maxTresPerJob: 'gres/gpu=8',
  preempt: ['scavenger'], preemptMode: 'REQUEUE', gpuIdleExempt: false, noDecay: false, overPartQos: false, graceSeconds: 60,
};

describe('qosRequest', () => {
  it('creates a QOS with only the fields filled in, in the API units', () => {
    const form = { ...qosForm(), name: ' gold ', priority: '100', maxWall: '1-00:00:00', maxTresPerJob: 'gres/gpu=8', maxJobsPerUser: '10', preempt: 'low, scavenger' };
    const { body, errors } = qosRequest(form);
    expect(errors).toEqual({});
    expect(body).toEqual({ name: 'gold', priority: 100, maxWallSeconds: 86400, maxTresPerJob: 'gres/gpu=8', maxJobsPerUser: 10, preempt: ['low', 'scavenger'] });
  });

  it('sends only what an edit changed, a cleared limit as -1 or "" and a reset budget as rawUsage 0', () => {
    const before = qosForm(gold);
    expect(before.maxWall).toBe('1-00:00:00');
    expect(qosRequest(before, before).body).toEqual({});
    const form = { ...before, maxJobsPerUser: '', maxTresPerJob: '', grpTres: 'cpu=64', graceSeconds: '120', maxWall: '90', resetUsage: true };
    expect(qosRequest(form, before)).toEqual({
      body: { maxJobsPerUser: -1, maxTresPerJob: '', grpTres: 'cpu=64', graceSeconds: 120, maxWallSeconds: 5400, rawUsage: 0 },
      errors: {},
    });
    // the cluster's default preempt mode is asked for by name
    expect(qosRequest({ ...before, preemptMode: '' }, before).body).toEqual({ preemptMode: 'CLUSTER' });
  });

  it('sends GrpWall in seconds (-1 when cleared) and the NoDecay and OverPartQOS flags, each only when it changed', () => {
    const created = qosRequest({ ...qosForm(), name: 'capped', grpWallSeconds: '36000', noDecay: true, overPartQos: true });
    expect(created).toEqual({ body: { name: 'capped', grpWallSeconds: 36000, noDecay: true, overPartQos: true }, errors: {} });
    // a new QOS leaves the flags it does not set to the server's default
    expect(qosRequest({ ...qosForm(), name: 'plain' }).body).toEqual({ name: 'plain' });

    const before = qosForm({ ...gold, grpWallSeconds: 36000, grpWallSecondsUsed: 1200, noDecay: true });
    expect(before).toMatchObject({ grpWallSeconds: '36000', noDecay: true, overPartQos: false });
    expect(qosRequest(before, before).body).toEqual({});
    expect(qosRequest({ ...before, grpWallSeconds: '7200', noDecay: false, overPartQos: true }, before))
      .toEqual({ body: { grpWallSeconds: 7200, noDecay: false, overPartQos: true }, errors: {} });
    expect(qosRequest({ ...before, grpWallSeconds: ' ' }, before).body).toEqual({ grpWallSeconds: -1 });
  });

  it('refuses a GrpWall that is not a whole number of seconds at its field, sending nothing for it', () => {
    const before = qosForm(gold);
    for (const bad of ['10h', '1.5', '-2']) {
      const { body, errors } = qosRequest({ ...before, grpWallSeconds: bad, noDecay: true }, before);
      expect(errors).toEqual({ grpWallSeconds: 'Enter a whole number (empty: no limit).' });
      expect(body).not.toHaveProperty('grpWallSeconds');
    }
  });

  it('names each value it cannot send by the API field it would have gone to', () => {
    const { errors } = qosRequest({ ...qosForm(), priority: 'high', maxWall: 'soon', maxJobsPerUser: '2.5', usageFactor: 'x', graceSeconds: '-3' });
    expect(Object.keys(errors).sort()).toEqual(['graceSeconds', 'maxJobsPerUser', 'maxWallSeconds', 'name', 'priority', 'usageFactor']);
  });
});

describe('reservationRequest', () => {
  const now = new Date('2026-12-05T12:00:00Z');
  const empty = { name: '', start: '', duration: '60', nodes: '', nodeCount: '', partition: '', users: '', accounts: '', flags: [] as string[] };

  it('creates a maintenance window over a count of a partition\'s nodes for an account, starting now', () => {
    const { body, errors } = reservationRequest({ ...empty, name: 'maint', nodeCount: '2', partition: 'cpu', accounts: 'physics, chem', flags: ['MAINT'] }, undefined, now);
    expect(errors).toEqual({});
    expect(body).toEqual({ name: 'maint', startTime: '2026-12-05T12:00:00.000Z', durationSeconds: 3600, nodeCount: 2, partition: 'cpu',
      users: [], accounts: ['physics', 'chem'], flags: ['MAINT'] });
  });

  it('changes only what an edit changed: a new duration alone keeps the start', () => {
    const before = reservationForm({ name: 'maint', startTime: '2026-12-05T12:00:00Z', endTime: '2026-12-05T13:00:00Z', nodes: 'cpu[001-002]',
      partition: 'cpu', accounts: ['physics'], flags: ['MAINT'] });
    expect(before.duration).toBe('01:00:00');
    expect(reservationRequest({ ...before, duration: '120' }, before, now)).toEqual({ body: { durationSeconds: 7200 }, errors: {} });
    expect(reservationRequest({ ...before, flags: ['MAINT', 'IGNORE_JOBS'], users: 'admin' }, before, now).body)
      .toEqual({ users: ['admin'], flags: ['MAINT', 'IGNORE_JOBS'] });
  });

  it('refuses a duration it cannot read and both a node list and a node count', () => {
    expect(reservationRequest({ ...empty, duration: 'long' }, undefined, now).errors).toEqual({ durationSeconds: 'Enter minutes or [days-]hh:mm:ss.' });
    expect(Object.keys(reservationRequest({ ...empty, nodes: 'cpu001', nodeCount: '2' }, undefined, now).errors)).toEqual(['nodes']);
    expect(Object.keys(reservationRequest({ ...empty, nodeCount: '0' }, undefined, now).errors)).toEqual(['nodeCount']);
  });
});

describe('guaranteeChange', () => {
  it('sends the guarantee fields that differ, a cleared one as ""', () => {
    const account = { name: 'physics', guaranteedTres: 'gres/gpu=16', maxBorrowTres: null, maxLendTres: 'gres/gpu=4' };
    expect(guaranteeChange({ guaranteedTres: 'gres/gpu=16', maxBorrowTres: '', maxLendTres: 'gres/gpu=4' }, account)).toEqual({});
    expect(guaranteeChange({ guaranteedTres: 'gres/gpu=8 ', maxBorrowTres: 'gres/gpu=2', maxLendTres: '' }, account))
      .toEqual({ guaranteedTres: 'gres/gpu=8', maxBorrowTres: 'gres/gpu=2', maxLendTres: '' });
  });
});

describe('partitionQosRequest', () => {
  const gpu: PartitionView = { name: 'gpu', isDefault: true, priorityTier: 1, totalCpus: 64, totalGpus: 8, totalNodes: 1, qos: 'gpu-part' };
  const known = ['normal', 'gpu-part', 'scavenger'];

  it('sets a partition QOS by name, clears it with "", and sends nothing when it is unchanged', () => {
    expect(partitionQosRequest('scavenger', gpu, known)).toEqual({ body: { qos: 'scavenger' }, errors: {} });
    expect(partitionQosRequest('', gpu, known)).toEqual({ body: { qos: '' }, errors: {} });
    expect(partitionQosRequest('gpu-part', gpu, known)).toEqual({ body: {}, errors: {} });
    expect(partitionQosRequest('', { ...gpu, qos: undefined }, known)).toEqual({ body: {}, errors: {} });
  });

  it('refuses a QOS that does not exist at the qos field', () => {
    const { body, errors } = partitionQosRequest('gold', gpu, known);
    expect(body).toEqual({});
    expect(errors.qos).toMatch(/gold.*normal, gpu-part, scavenger/);
  });

  it("puts the server's refusal of a QOS at the qos field", () => {
    const refused = new ApiError(400, { status: 400, title: 'Invalid', errors: [{ field: 'qos', message: "unknown QOS 'gone'" }] });
    expect(fieldErrors(refused, ['qos'])).toEqual({ byField: { qos: "unknown QOS 'gone'" }, rest: null });
  });
});

describe('partitionStateWarning', () => {
  it('asks before a partition stops starting jobs, not before it is set UP', () => {
    expect(partitionStateWarning('gpu', 'UP')).toBeNull();
    for (const state of ['DOWN', 'DRAIN', 'INACTIVE']) expect(partitionStateWarning('gpu', state)).toMatch(/gpu/);
  });
});

describe('fieldErrors', () => {
  it("puts the server's errors at the fields it names and says the rest in words", () => {
    const refused = new ApiError(400, { status: 400, title: 'Invalid', errors: [
      { field: 'maxTresPerJob', message: "unknown TRES 'gpus'" }, { field: 'preempt[0]', message: "QOS 'x' does not exist" },
      { field: 'body', message: 'odd' }] });
    const { byField, rest } = fieldErrors(refused, ['maxTresPerJob', 'preempt']);
    expect(byField).toEqual({ maxTresPerJob: "unknown TRES 'gpus'", preempt: "QOS 'x' does not exist" });
    expect((rest as ApiError).problem.detail).toBe('body: odd');
    expect(fieldErrors(refused, ['maxTresPerJob', 'preempt', 'body']).rest).toBeNull();
  });
});

describe('auditChanges', () => {
  it('lists the fields a change altered, before and after', () => {
    expect(auditChanges({ name: 'cpu', state: 'UP', totalNodes: 8 }, { name: 'cpu', state: 'DOWN', totalNodes: 8 })).toEqual(['state: UP → DOWN']);
    expect(auditChanges({ preempt: [], maxJobsPerUser: 4 }, { preempt: ['low'], maxJobsPerUser: null })).toEqual(['preempt: — → low', 'maxJobsPerUser: 4 → —']);
    expect(auditChanges(null, { name: 'gold' })).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { AccountTree, type Scope } from './coordination';

const tree = new AccountTree([
  { name: 'root' }, { name: 'physics', parent: 'root' }, { name: 'optics', parent: 'physics' },
  { name: 'lasers', parent: 'optics' }, { name: 'chemistry', parent: 'root' },
]);
const boss: Scope = { admin: false, me: 'boss', coordinatorOf: ['physics'] };
const admin: Scope = { admin: true, me: 'admin', coordinatorOf: [] };

describe('AccountTree', () => {
  it("shows a coordinator only their account's sub-tree, an ADMIN everything", () => {
    expect(tree.visible(boss).sort()).toEqual(['lasers', 'optics', 'physics']);
    expect(tree.visible(admin)).toHaveLength(5);
    expect(tree.visible({ admin: false, me: 'x', coordinatorOf: [] })).toEqual([]);
    // An OPERATOR sees it all, and may change no more than their own sub-trees.
    const operator: Scope = { admin: false, me: 'op', coordinatorOf: [], seesAll: true };
    expect(tree.visible(operator)).toHaveLength(5);
    expect(tree.mayChangeAccount(operator, 'optics')).toBe(false);
  });

  it('lets a coordinator change the accounts below theirs, not their own nor others', () => {
    expect(tree.mayChangeAccount(boss, 'optics')).toBe(true);
    expect(tree.mayChangeAccount(boss, 'lasers')).toBe(true);
    expect(tree.mayChangeAccount(boss, 'physics')).toBe(false);
    expect(tree.mayChangeAccount(boss, 'chemistry')).toBe(false);
    expect(tree.mayChangeAccount(admin, 'root')).toBe(true);
  });

  it("lets a coordinator manage users in their account and below, except their own association", () => {
    expect(tree.mayManageIn(boss, 'physics')).toBe(true);
    expect(tree.mayChangeAssociation(boss, 'physics', 'alice')).toBe(true);
    expect(tree.mayChangeAssociation(boss, 'optics', 'alice')).toBe(true);
    expect(tree.mayChangeAssociation(boss, 'physics', 'boss')).toBe(false);
    expect(tree.mayChangeAssociation(boss, 'chemistry', 'alice')).toBe(false);
    expect(tree.mayManageIn(boss, 'root')).toBe(false);
  });
});

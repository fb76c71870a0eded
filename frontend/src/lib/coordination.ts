import type { Account } from '../api/types';

/**
 * What a user may manage in the account tree, as the API decides it (AccountCoordinators): an ADMIN
 * everything; a coordinator of an account the accounts below it (create, change, delete) and the
 * users' associations in it and below, except their own; an account's own shares and limits only
 * from a coordinator of an account above it.
 */
export interface Scope {
  admin: boolean; me: string; coordinatorOf: string[];
  /** Sees the whole tree though it may change only its own sub-trees (an OPERATOR). */
  seesAll?: boolean;
}

export class AccountTree {
  private readonly parentOf = new Map<string, string | null>();

  constructor(accounts: Account[]) {
    for (const a of accounts) this.parentOf.set(a.name, a.parent ?? null);
  }

  /** The account and those above it, nearest first. */
  upFrom(account: string): string[] {
    const out: string[] = [];
    for (let a: string | null | undefined = account; a && !out.includes(a); a = this.parentOf.get(a)) out.push(a);
    return out;
  }

  /** Whether {@code account} is {@code top} or below it. */
  within(account: string, top: string): boolean {
    return this.upFrom(account).includes(top);
  }

  /** The accounts a scope sees in the admin view: all for an ADMIN or OPERATOR, a coordinator's sub-trees otherwise. */
  visible(scope: Scope): string[] {
    const all = [...this.parentOf.keys()];
    return scope.admin || scope.seesAll ? all : all.filter((a) => scope.coordinatorOf.some((c) => this.within(a, c)));
  }

  /** May create accounts under, and add users to, {@code account}. */
  mayManageIn(scope: Scope, account: string): boolean {
    return scope.admin || this.upFrom(account).some((a) => scope.coordinatorOf.includes(a));
  }

  /** May change or delete {@code account} itself, and its own association's limits. */
  mayChangeAccount(scope: Scope, account: string): boolean {
    return scope.admin || this.upFrom(account).slice(1).some((a) => scope.coordinatorOf.includes(a));
  }

  /** May change or remove {@code user}'s association in {@code account}. */
  mayChangeAssociation(scope: Scope, account: string, user: string): boolean {
    return scope.admin || (user !== scope.me && this.mayManageIn(scope, account));
  }
}

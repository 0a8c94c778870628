import type { TSendingAccount } from '@sendwell/contracts';

/**
 * The domain of a new list's address (`alias@domain`) on an account. The server names it
 * (`listDomain`); older answers without it fall back to the same rule: the Mailgun domain, else
 * the domain of the account's sending address.
 */
export const listDomainOf = (account: TSendingAccount): string => {
  if (account.listDomain) return account.listDomain;
  if (account.provider === 'mailgun') return account.domain ?? '';
  const address = [account.fromAddress, account.username, account.gmail_accounts?.email].find((value) =>
    value?.includes('@'),
  );
  return address?.split('@').pop() ?? '';
};

/** The account a new list goes on unless the user picks another: the primary one. */
export const defaultAccountOf = (accounts: readonly TSendingAccount[]) =>
  accounts.find((account) => account.active) ?? accounts[0];

export const USAGE_LABELS = { drip: 'Drip campaign', scheduled: 'Scheduled email' } as const;

const countFormat = new Intl.NumberFormat('en-US');

/** A count as tables print it: `12500` → '12,500'. */
export const formatCount = (count: number): string => countFormat.format(count);

import type { TCreditType } from '@sendwell/contracts';

const numberFormat = new Intl.NumberFormat('en-US');
const changeFormat = new Intl.NumberFormat('en-US', { signDisplay: 'exceptZero' });

/** A balance: `1250` → '1,250'. */
export const formatCredits = (credits: number): string => numberFormat.format(credits);

/** A change to the balance, always signed so the direction reads without colour: '+500', '-3'. */
export const formatCreditChange = (quantity: number): string => changeFormat.format(quantity);

/** What a credit log entry's type means to the person reading the log. */
export const creditTypeLabel = (type: TCreditType): string => {
  switch (type) {
    case 'verify':
      return 'Verification';
    case 'spam-check':
      return 'Spam test';
    case 'sale':
      return 'Purchase';
    case 'trial':
      return 'Trial credits';
    case 'mon-balance-add':
      return 'Monthly credits added';
    case 'mon-balance-remove':
      return 'Monthly credits removed';
    case 'one-time-credit':
      return 'One-time credit';
  }
};

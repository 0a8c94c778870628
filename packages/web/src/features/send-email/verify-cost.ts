import { counted } from '@sendwell/contracts';

type TVerifyCost = {
  /** Without billing (a single company's install) verifying costs nothing. */
  isBilling: boolean;
  /** The credits verifying takes; `null` while they are worked out or when that failed. */
  credits: number | null;
  isCostError: boolean;
  /** The user's usable credits. */
  available: number;
};

/** What verifying a send's never-verified recipients costs, in one sentence (the warning and the verify-then-send dialog). */
export const verifyCostSentence = ({ isBilling, credits, isCostError, available }: TVerifyCost): string => {
  if (!isBilling) return 'Verifying them costs nothing.';
  if (credits === null)
    return isCostError
      ? 'What verifying them costs could not be worked out.'
      : 'Working out what verifying them costs…';
  if (credits === 0) return 'Verifying them costs nothing: each address was checked before.';
  return `Verifying them costs ${counted(credits, 'credit')} (one per address not checked before); you have ${available.toLocaleString('en-US')}.`;
};

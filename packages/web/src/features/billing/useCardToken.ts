import { REGISTRATION_MESSAGES } from '@sendwell/contracts';
import { useRef, useState } from 'react';
import { ApiError } from '../../app/api';
import { firstFieldMessages, showError } from '../../app/errors';
import type { TCardFieldHandle } from './CardField';

/**
 * A payment form's card field and the token Stripe gives for it (buying credits, changing
 * plan). `tokenize()` answers the token, or `undefined` once the field shows why there is none
 * (not filled in, or refused by Stripe). `cardField` goes to the CardField as its props.
 */
export const useCardToken = () => {
  const cardRef = useRef<TCardFieldHandle>(null);
  const [isCardComplete, setIsCardComplete] = useState(false);
  const [isTokenPending, setIsTokenPending] = useState(false);
  const [cardError, setCardError] = useState<string | undefined>();

  /** Stripe's answer for the card typed in; a form that shows the card's error itself (Register) takes this. */
  const createToken = async () => {
    setIsTokenPending(true);
    const card = (await cardRef.current?.createToken()) ?? { error: REGISTRATION_MESSAGES.card };
    setIsTokenPending(false);
    return card;
  };

  const tokenize = async (): Promise<string | undefined> => {
    if (!isCardComplete) {
      setCardError(REGISTRATION_MESSAGES.card);
      return undefined;
    }
    const card = await createToken();
    if ('error' in card) {
      setCardError(card.error);
      return undefined;
    }
    return card.token;
  };

  /** After a payment: the field empties, ready for another card. */
  const clear = () => {
    cardRef.current?.clear();
    setIsCardComplete(false);
  };

  const cardField = {
    ref: cardRef,
    error: cardError,
    onChange: (isComplete: boolean) => {
      setIsCardComplete(isComplete);
      setCardError(undefined);
    },
  };

  return {
    cardField,
    tokenize,
    clear,
    isTokenPending,
    setCardError,
    cardRef,
    isCardComplete,
    setIsCardComplete,
    createToken,
  };
};

/**
 * Where a refused payment is shown: a declined card (402) beside the card field when one was
 * asked for, above the form otherwise; a refused request (422, 429) above the form; anything
 * else in the error dialog.
 */
export const showPaymentFailure = (
  error: unknown,
  {
    isCardAsked,
    setCardError,
    setRefusal,
  }: {
    isCardAsked: boolean;
    setCardError: (message: string) => void;
    setRefusal: (message: string) => void;
  },
) => {
  if (error instanceof ApiError && error.status === 402) {
    if (isCardAsked) setCardError(error.message);
    else setRefusal(error.message);
  } else if (error instanceof ApiError && (error.status === 422 || error.status === 429)) {
    setRefusal(firstFieldMessages(error.body.errors)[0] ?? error.message);
  } else {
    showError(error);
  }
};

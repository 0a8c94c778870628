import { Box, Input, Text } from '@mantine/core';
import { CardElement, Elements, useElements, useStripe } from '@stripe/react-stripe-js';
// Types only from the main entry: importing it for real adds Stripe's script to every page.
import type { Stripe, StripeCardElementChangeEvent } from '@stripe/stripe-js';
// `pure` loads Stripe.js when a card field first needs it: pages without one, and servers
// without Stripe, never contact Stripe.
import { loadStripe } from '@stripe/stripe-js/pure';
import { type Ref, useEffect, useImperativeHandle, useState } from 'react';

export type TCardToken = { token: string } | { error: string };

export type TCardFieldHandle = {
  /** A single-use Stripe token for what was typed, or Stripe's sentence about what is wrong. */
  createToken: () => Promise<TCardToken>;
  clear: () => void;
};

type TProps = {
  /** The server's `stripePublishableKey`; render no card field without one. */
  publishableKey: string;
  label?: string;
  /** A failure from outside the field: a declined card, a missing card on submit. */
  error?: string;
  /** Every change, with whether the card number, expiry and CVC are all filled in. */
  onChange?: (isComplete: boolean) => void;
  ref?: Ref<TCardFieldHandle>;
};

const NOT_LOADED = 'The card field could not be loaded. Check your connection and reload the page.';

/** One Stripe.js per key for the whole tab: Elements must not see a new promise on every render. */
const stripeByKey = new Map<string, Promise<Stripe | null>>();

const loadStripeOnce = (publishableKey: string): Promise<Stripe | null> => {
  let stripe = stripeByKey.get(publishableKey);
  if (!stripe) {
    stripe = loadStripe(publishableKey).catch(() => {
      // A blocked or failed script load: forget it, so the next card field shown tries again.
      stripeByKey.delete(publishableKey);
      return null;
    });
    stripeByKey.set(publishableKey, stripe);
  }
  return stripe;
};

// The card inputs live in Stripe's iframe, out of reach of Mantine's CSS variables.
const cardStyle = {
  base: {
    fontSize: '14px',
    color: '#212529',
    fontFamily: '-apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, Helvetica, Arial, sans-serif',
    '::placeholder': { color: '#adb5bd' },
  },
  invalid: { color: '#fa5252' },
};

/** The Stripe card element, inside its Elements provider; the one place the web app touches card details. */
export const CardField = ({ publishableKey, ...props }: TProps) => {
  // Once per mount: after a failed load a re-render must not start another one, but a card field
  // shown again may try again.
  const [stripe] = useState(() => loadStripeOnce(publishableKey));
  const [isUnavailable, setIsUnavailable] = useState(false);
  useEffect(() => {
    let isCurrent = true;
    void stripe.then((loaded) => {
      if (isCurrent) setIsUnavailable(loaded === null);
    });
    return () => {
      isCurrent = false;
    };
  }, [stripe]);

  return (
    <Elements stripe={stripe}>
      <CardInput {...props} error={props.error ?? (isUnavailable ? NOT_LOADED : undefined)} />
    </Elements>
  );
};

const CardInput = ({ label = 'Card', error, onChange, ref }: Omit<TProps, 'publishableKey'>) => {
  const stripe = useStripe();
  const elements = useElements();
  // Stripe's own sentence while typing ("Your card number is incomplete."); a failure passed in wins.
  const [typingError, setTypingError] = useState<string | undefined>();

  useImperativeHandle(
    ref,
    () => ({
      createToken: async () => {
        const card = elements?.getElement(CardElement);
        if (!stripe || !card) return { error: 'The card field is still loading. Please try again in a moment.' };
        const result = await stripe.createToken(card);
        if (result.error) return { error: result.error.message ?? 'The card was not accepted.' };
        return { token: result.token.id };
      },
      clear: () => elements?.getElement(CardElement)?.clear(),
    }),
    [stripe, elements],
  );

  const change = (event: StripeCardElementChangeEvent) => {
    setTypingError(event.error?.message);
    onChange?.(event.complete);
  };

  return (
    <Input.Wrapper label={label} error={error ?? typingError} data-testid="card-field">
      <Input
        component="div"
        error={Boolean(error ?? typingError)}
        styles={{ input: { display: 'flex', alignItems: 'center' } }}
      >
        <Box flex={1}>
          <CardElement options={{ style: cardStyle }} onChange={change} />
        </Box>
      </Input>
      <Text size="xs" c="dimmed" mt={4}>
        Card details go straight to Stripe; Sendwell never sees them.
      </Text>
    </Input.Wrapper>
  );
};

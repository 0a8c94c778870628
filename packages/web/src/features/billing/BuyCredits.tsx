import { Anchor, Button, Group, Loader, Paper, Radio, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { TBillingOptions } from '@sendwell/contracts';
import { useState } from 'react';
import { Link } from 'react-router';
import { showSuccess } from '../../app/toasts';
import { FormError } from '../../components/FormError';
import { formatCredits } from '../credits/credits.format';
import { formatPrice } from './billing.format';
import { useBuyCredits } from './billing.queries';
import { CardField } from './CardField';
import { showPaymentFailure, useCardToken } from './useCardToken';

type TProps = {
  publishableKey: string | null;
  packs: TBillingOptions['creditPacks'];
  /** Whether Stripe holds a card for the user; `undefined` until the subscription is known. */
  hasCard: boolean | undefined;
};

const PACK_REQUIRED = 'Please choose one of the credit packs.';

/** One-time credit packs, paid by card. */
export const BuyCredits = ({ publishableKey, packs, hasCard }: TProps) => {
  const buyCredits = useBuyCredits();
  const { cardField, tokenize, clear, isTokenPending, setCardError } = useCardToken();
  const [credits, setCredits] = useState<string | null>(null);
  const [isNewCard, setIsNewCard] = useState(false);
  const [packError, setPackError] = useState<string | undefined>();
  const [refusal, setRefusal] = useState<string | null>(null);

  const pack = packs.find((candidate) => String(candidate.credits) === credits);
  const needsCard = !hasCard || isNewCard;

  const buy = async () => {
    setRefusal(null);
    if (!pack) {
      setPackError(PACK_REQUIRED);
      return;
    }
    let stripeToken: string | undefined;
    if (needsCard) {
      stripeToken = await tokenize();
      if (!stripeToken) return;
    }

    buyCredits.mutate(
      { credits: pack.credits, stripeToken },
      {
        onSuccess: ({ message }) => {
          // The header balance follows by itself (realtime, and the answer's balance).
          showSuccess(message, null);
          clear();
          setCredits(null);
        },
        onError: (error) => showPaymentFailure(error, { isCardAsked: needsCard, setCardError, setRefusal }),
      },
    );
  };

  return (
    <Paper withBorder p="lg">
      <Title order={2} fz="lg">
        Buy Credits
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        Credits pay for email verification and spam tests. A pack is paid once, on top of your plan.
      </Text>
      {!publishableKey ? (
        <Text size="sm">
          Credit purchases are not available on this server.{' '}
          <Anchor component={Link} to="/contact-us" size="sm">
            Contact us
          </Anchor>{' '}
          to get more credits.
        </Text>
      ) : (
        <Stack>
          <Radio.Group
            value={credits}
            onChange={(value) => {
              setCredits(value);
              setPackError(undefined);
            }}
            label="Credit pack"
            error={packError}
          >
            <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} mt="xs">
              {packs.map((candidate) => (
                <Radio.Card key={candidate.credits} value={String(candidate.credits)} p="md" withBorder>
                  <Group wrap="nowrap" align="flex-start">
                    <Radio.Indicator />
                    <div>
                      <Text fw={600}>{formatCredits(candidate.credits)} credits</Text>
                      <Text size="sm" c="dimmed">
                        {formatPrice(candidate.price)}
                      </Text>
                    </div>
                  </Group>
                </Radio.Card>
              ))}
            </SimpleGrid>
          </Radio.Group>
          {hasCard === undefined ? (
            <Loader size="sm" aria-label="Loading payment details" />
          ) : needsCard ? (
            <CardField {...cardField} publishableKey={publishableKey} />
          ) : (
            <Text size="sm">
              The card on file is charged.{' '}
              <Anchor component="button" type="button" size="sm" onClick={() => setIsNewCard(true)}>
                Use another card
              </Anchor>
            </Text>
          )}
          <FormError message={refusal} />
          <Group>
            <Button
              loading={isTokenPending || buyCredits.isPending}
              disabled={hasCard === undefined}
              onClick={() => void buy()}
            >
              {pack ? `Buy ${formatCredits(pack.credits)} credits for ${formatPrice(pack.price)}` : 'Buy'}
            </Button>
          </Group>
        </Stack>
      )}
    </Paper>
  );
};

import { Badge, Card, Group, Radio, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { describePlan, formatPlanPrice, formatPrice, PAID_PLANS_UNAVAILABLE } from './billing.format';
import type { TPlan } from './billing.queries';

type TProps = {
  plan: TPlan;
  testId: string;
  /** Registration: the card is one choice of a radio group, checked or not. */
  selection?: { isSelected: boolean; onSelect: () => void };
  /** The signed-in user's plan. */
  isCurrent?: boolean;
  /** A paid plan on a server without Stripe: shown, with the reason, but not to be chosen. */
  isUnavailable?: boolean;
  /** The card's buttons. */
  children?: ReactNode;
};

/** A plan as registration and the Subscription screen show it: name, price, what it includes. */
export const PlanCard = ({ plan, testId, selection, isCurrent = false, isUnavailable = false, children }: TProps) => {
  const isHighlighted = selection?.isSelected || isCurrent;
  return (
    <Card
      withBorder
      padding="lg"
      data-testid={testId}
      style={{
        borderColor: isHighlighted ? 'var(--mantine-primary-color-filled)' : undefined,
        // Muted by a tint, not opacity: faded text would fall below 4.5:1 contrast.
        backgroundColor: isUnavailable ? 'var(--mantine-color-gray-0)' : undefined,
      }}
    >
      <Stack gap="xs" h="100%">
        <Group justify="space-between" align="flex-start" wrap="nowrap">
          {selection ? (
            <Radio
              name="plan"
              value={String(plan.id)}
              label={plan.name}
              checked={selection.isSelected}
              disabled={isUnavailable}
              onChange={selection.onSelect}
              styles={{ label: { fontWeight: 600 } }}
            />
          ) : (
            <Title order={3} fz="md">
              {plan.name}
            </Title>
          )}
          {isCurrent && (
            <Badge variant="light" data-testid="current-plan">
              Current plan
            </Badge>
          )}
        </Group>
        <Text fz="xl" fw={700}>
          {/* A free plan's card says its price in figures: its name already says Free. */}
          {plan.isFree ? `${formatPrice(0)} / month` : formatPlanPrice(plan)}
          {!plan.isFree && plan.tax > 0 && (
            <Text component="span" size="xs" c="dimmed" fw={400}>
              {' '}
              + {plan.tax}% tax
            </Text>
          )}
        </Text>
        <Text size="sm" c="dimmed" style={{ flexGrow: 1 }}>
          {describePlan(plan)}
        </Text>
        {isUnavailable && (
          <Text size="xs" c="orange">
            {PAID_PLANS_UNAVAILABLE}
          </Text>
        )}
        {children}
      </Stack>
    </Card>
  );
};

import { Alert, Anchor, Badge, Button, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { CREDIT_PACKS } from '@sendwell/contracts';
import { IconInfoCircle } from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { formatLongDate } from '../../app/dates';
import { useSignedInUser } from '../../app/session';
import { PageHeader } from '../../components/PageHeader';
import { QueryStatus } from '../../components/QueryStatus';
import { BuyCredits } from './BuyCredits';
import { planChange, planSummary, subscriptionStatusLabel } from './billing.format';
import { type TPlan, useBillingOptions, usePlans, useSubscription } from './billing.queries';
import { ChangePlanModal } from './ChangePlanModal';
import { PlanCard } from './PlanCard';

/**
 * What a customer can do while the server takes no payments. How operators move users
 * between plans is theirs to know (the operator area's System tab and the README), not the
 * customer's.
 */
const PaymentsUnavailable = () => (
  <Alert color="blue" icon={<IconInfoCircle size={18} />} title="Payments are not set up on this server" mb="lg">
    Paid plans and credit purchases are not available here yet. To move to another plan or get more credits,{' '}
    <Anchor component={Link} to="/contact-us" size="sm">
      contact us
    </Anchor>
    .
  </Alert>
);

export const SubscriptionPage = () => {
  const user = useSignedInUser();
  const plans = usePlans();
  const options = useBillingOptions();
  const subscription = useSubscription();
  const [target, setTarget] = useState<TPlan | null>(null);

  const publishableKey = options.data?.stripePublishableKey ?? null;
  // User information carries the plan too, so the page can mark it before the subscription arrives.
  const currentPlanId = subscription.data?.planId ?? user.plan.id;
  const currentPlan = plans.data?.find((plan) => plan.id === currentPlanId);
  const hasCard = subscription.data?.hasCard ?? false;
  const stripeSubscription = subscription.data?.subscription ?? null;

  return (
    <>
      <PageHeader title="Subscription" description="Your plan, and credits when you need more." />
      {options.isSuccess && !publishableKey && <PaymentsUnavailable />}

      <Paper withBorder p="lg" mb="lg">
        <Group gap="xl">
          <Stack gap={2}>
            <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
              Current plan
            </Text>
            <Text fw={650} fz="lg">
              {currentPlan ? planSummary(currentPlan) : user.plan.name}
            </Text>
          </Stack>
          {stripeSubscription && (
            <Stack gap={2}>
              <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
                Status
              </Text>
              <Group gap="xs">
                <Badge variant="light" color={stripeSubscription.status === 'active' ? 'green' : 'yellow'}>
                  {subscriptionStatusLabel(stripeSubscription.status)}
                </Badge>
                {stripeSubscription.currentPeriodEnd && (
                  <Text size="sm" data-testid="renews-on">
                    Renews on {formatLongDate(stripeSubscription.currentPeriodEnd, user.time_zone)}
                  </Text>
                )}
              </Group>
            </Stack>
          )}
        </Group>
      </Paper>

      <Title order={2} fz="lg" mb="sm">
        Plans
      </Title>
      {plans.isPending || plans.isError ? (
        <QueryStatus query={plans} label="Loading plans" failed="The plans could not be loaded" py="xl" />
      ) : (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: Math.min(4, plans.data.length) }}>
          {plans.data.map((plan) => {
            const isCurrent = plan.id === currentPlanId;
            // A paid plan is charged through Stripe, whether a card is on file or not.
            const isUnavailable = !plan.isFree && publishableKey === null;
            return (
              <PlanCard
                key={plan.id}
                plan={plan}
                testId={`subscription-plan-${plan.id}`}
                isCurrent={isCurrent}
                isUnavailable={isUnavailable && !isCurrent}
              >
                {!isCurrent && (
                  <Button
                    variant="light"
                    disabled={isUnavailable || subscription.isPending}
                    onClick={() => setTarget(plan)}
                  >
                    {planChange(currentPlan, plan)}
                  </Button>
                )}
              </PlanCard>
            );
          })}
        </SimpleGrid>
      )}
      <Text size="sm" c="dimmed" mt="sm" mb="xl">
        Questions about plans?{' '}
        <Anchor component={Link} to="/contact-us">
          Contact us
        </Anchor>
      </Text>

      <BuyCredits
        publishableKey={publishableKey}
        packs={options.data?.creditPacks ?? CREDIT_PACKS.map((pack) => ({ ...pack }))}
        // Until the subscription is known, a card field could be one the user does not need.
        hasCard={subscription.isPending ? undefined : hasCard}
      />

      <ChangePlanModal
        target={target}
        current={currentPlan}
        hasCard={hasCard}
        publishableKey={publishableKey}
        onClose={() => setTarget(null)}
      />
    </>
  );
};

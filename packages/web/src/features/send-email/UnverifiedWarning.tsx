import { Alert, Anchor, Button, Group, Stack, Text } from '@mantine/core';
import { counted, SEND_MESSAGES, usableCredit, verificationApi } from '@sendwell/contracts';
import { IconShieldCheck } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { callRoute } from '../../app/api';
import { useSignedInUser } from '../../app/session';
import { verifyCostSentence } from './verify-cost';
import { waitingSendKeys } from './waiting-sends.queries';

/**
 * The one warning of Send Email about unverified addresses (issue 45 §2), in the
 * confirmation: how many of the recipients were never verified, what that risks (bounces and
 * the sender's reputation, not a "spam score"), what verifying them costs, and Verify, then
 * send (the verify-lists upsell). It stands for the checklist's own item, which the
 * confirmation leaves out, and for the verify-lists dialog that used to come first.
 */
export const UnverifiedWarning = ({
  unverified,
  recipients,
  listIds,
  onVerifyThenSend,
}: {
  unverified: number;
  recipients: number;
  listIds: number[];
  /**
   * Verify, then send (the verify-lists upsell, issue 47): its dialog confirms the cost, verifies
   * the lists and sends this email by itself once they are verified.
   */
  onVerifyThenSend?: () => void;
}) => {
  const user = useSignedInUser();
  const cost = useQuery({
    queryKey: waitingSendKeys.cost(listIds),
    queryFn: () => callRoute(verificationApi.creditCheck, { body: { mailingLists: listIds } }),
    enabled: unverified > 0,
  });
  if (unverified === 0) return null;
  const available = usableCredit(user.credit);
  const credits = cost.data?.count ?? null;
  // Without billing (a single company's install) verifying costs nothing and nothing runs short.
  const isShort = user.billing && credits !== null && credits > available;
  return (
    <Alert
      color="yellow"
      icon={<IconShieldCheck size={18} aria-hidden />}
      title={`${counted(unverified, { one: 'recipient was', other: 'recipients were' })} never verified`}
      data-testid="unverified-warning"
    >
      <Stack gap={6}>
        <Text size="sm">
          {unverified.toLocaleString('en-US')} of {counted(recipients, 'recipient')}. {SEND_MESSAGES.unverified}
        </Text>
        <Text size="sm" data-testid="unverified-cost">
          {verifyCostSentence({ isBilling: user.billing, credits, isCostError: cost.isError, available })}
        </Text>
        <Group gap="xs">
          {isShort ? (
            <Anchor component={Link} to="/settings/subscription" size="sm">
              Buy credits to verify them
            </Anchor>
          ) : (
            onVerifyThenSend && (
              <Button size="xs" variant="default" disabled={credits === null} onClick={onVerifyThenSend}>
                Verify, then send
              </Button>
            )
          )}
        </Group>
      </Stack>
    </Alert>
  );
};

import { Badge, Group, Stack, Text } from '@mantine/core';
import type { TMailingList, TMember } from '@sendwell/contracts';
import { useFormatDateTime } from '../../app/dates';

/** A list's verification (spec §4): Unverified, then Processing..., then Verified with its date. */
export const ListVerifiedCell = ({ list }: { list: TMailingList }) => {
  const formatDateTime = useFormatDateTime();
  return (
    <Stack gap={2} align="flex-start">
      <Group gap={6} wrap="nowrap">
        <Text size="sm">{list.verified_count}</Text>
        {list.verify_status === 'verified' ? (
          <Badge color="green" variant="light" tt="none">
            Verified
          </Badge>
        ) : list.verify_status === 'processing' ? (
          <Badge color="yellow" variant="light" tt="none">
            Processing...
          </Badge>
        ) : (
          <Badge color="gray" variant="light" tt="none">
            Unverified
          </Badge>
        )}
      </Group>
      {list.verify_status === 'verified' && list.verified_at && (
        <Text size="xs" c="dimmed">
          {formatDateTime(list.verified_at)}
        </Text>
      )}
    </Stack>
  );
};

/** A member's verification (spec §4): Verified with its date, or Unverified. */
export const MemberVerifiedBadge = ({ member }: { member: TMember }) => {
  const formatDateTime = useFormatDateTime();
  if (!member.verified) {
    return (
      <Badge color="gray" variant="light" tt="none">
        Unverified
      </Badge>
    );
  }
  return (
    <Stack gap={2} align="flex-start">
      <Badge color="green" variant="light" tt="none">
        Verified
      </Badge>
      {member.verified_at && (
        <Text size="xs" c="dimmed">
          {formatDateTime(member.verified_at)}
        </Text>
      )}
    </Stack>
  );
};

export const SubscribedBadge = ({ subscribe }: { subscribe: 0 | 1 }) =>
  subscribe === 1 ? (
    <Badge color="blue" variant="light" tt="none">
      Subscribed
    </Badge>
  ) : (
    <Badge color="gray" variant="light" tt="none">
      Unsubscribed
    </Badge>
  );

import { Badge, Group, Progress, Stack, Text } from '@mantine/core';
import type { TMailingList, TMember } from '@sendwell/contracts';
import { useFormatDateTime } from '../../app/dates';
import { useListProgress } from './VerifyListModal';

/** The live bar under 'Processing...': checked of total, as the verification's events report it. */
const VerifyProgress = ({ listId }: { listId: number }) => {
  const progress = useListProgress(listId);
  const percent = progress && progress.total > 0 ? Math.round((progress.checked / progress.total) * 100) : null;
  return (
    <Stack gap={2} w={140}>
      <Progress
        value={percent ?? 100}
        animated={percent === null}
        striped={percent === null}
        size="sm"
        aria-label={percent === null ? 'Verification starting' : `Verified ${percent}%`}
      />
      {progress && (
        <Text size="xs" c="dimmed">
          {progress.checked.toLocaleString('en-US')} of {progress.total.toLocaleString('en-US')} checked
        </Text>
      )}
    </Stack>
  );
};

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
      {list.verify_status === 'processing' && <VerifyProgress listId={list.id} />}
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

/** Subscribed, waiting for the person's confirmation (double opt-in), or unsubscribed. */
export const SubscribedBadge = ({ subscribe, unconfirmed = false }: { subscribe: 0 | 1; unconfirmed?: boolean }) =>
  unconfirmed ? (
    <Badge color="yellow" variant="light" tt="none" c="var(--mantine-color-yellow-9)">
      Unconfirmed
    </Badge>
  ) : subscribe === 1 ? (
    <Badge color="blue" variant="light" tt="none">
      Subscribed
    </Badge>
  ) : (
    <Badge color="gray" variant="light" tt="none">
      Unsubscribed
    </Badge>
  );

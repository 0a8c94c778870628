import { Alert, Anchor, Button, Group, MultiSelect, Stack, Text } from '@mantine/core';
import { counted, SEND_MESSAGES, sendEmailApi } from '@sendwell/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { callRoute } from '../../app/api';

/**
 * Recipients from mailing lists (issue 47): one or more lists of the campaign's sending
 * account. Their subscribed members become recipients, the suppressed left out, as Send Email
 * takes them; the server reads them again when the campaign starts.
 */
export const RecipientLists = ({
  accountId,
  addedListIds,
  onLists,
  isSaving,
}: {
  accountId: number | null;
  /** Lists already among the sources: not offered again. */
  addedListIds: number[];
  onLists: (listIds: number[]) => void;
  isSaving: boolean;
}) => {
  const lists = useQuery({
    queryKey: ['send-email', 'account-lists', accountId],
    queryFn: ({ signal }) => callRoute(sendEmailApi.accountLists, { params: { accountId: accountId! }, signal }),
    enabled: accountId !== null,
  });
  const [chosen, setChosen] = useState<string[]>([]);
  const offered = (lists.data?.listData ?? []).filter((list) => !addedListIds.includes(list.id));
  const unverified = offered
    .filter((list) => chosen.includes(String(list.id)))
    .reduce((total, list) => total + list.unverified_subscribers_count, 0);
  if (accountId === null) return <Text size="sm">Choose the campaign’s sending account first (step 1).</Text>;
  return (
    <Stack>
      <MultiSelect
        label="Mailing lists"
        description="Their subscribed members become recipients; unsubscribed and suppressed members are left out."
        placeholder={offered.length === 0 ? 'No other list of this account' : 'Choose lists'}
        data={offered.map((list) => ({
          value: String(list.id),
          label: `${list.name} (${list.address}), ${list.subscribed.toLocaleString('en-US')} subscribed`,
        }))}
        value={chosen}
        onChange={setChosen}
        disabled={offered.length === 0}
        searchable
        clearable
      />
      {lists.data && lists.data.listData.length === 0 && (
        <Text size="sm" c="dimmed">
          This account has no mailing lists yet.{' '}
          <Anchor component={Link} to="/mailing-lists" size="sm">
            Create one
          </Anchor>
        </Text>
      )}
      {unverified > 0 && (
        <Alert
          color="yellow"
          title={`${counted(unverified, { one: 'member was', other: 'members were' })} never verified`}
          data-testid="lists-unverified"
        >
          {SEND_MESSAGES.unverified}{' '}
          <Anchor component={Link} to="/mailing-lists" size="sm">
            Verify the lists
          </Anchor>{' '}
          first, or add them as they are.
        </Alert>
      )}
      <Group justify="flex-end">
        <Button
          disabled={chosen.length === 0}
          loading={isSaving}
          onClick={() => {
            onLists(chosen.map(Number));
            setChosen([]);
          }}
        >
          Add these lists
        </Button>
      </Group>
    </Stack>
  );
};

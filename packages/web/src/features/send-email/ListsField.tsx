import { Alert, Anchor, MultiSelect, Text } from '@mantine/core';
import type { TSendList } from '@sendwell/contracts';
import { IconAddressBook, IconUsers } from '@tabler/icons-react';
import { memo } from 'react';
import { Link } from 'react-router';
import { OPTIONS_WHILE_OPEN } from './dropdown';
import { fieldId, listLabel } from './send-email.form';

type TProps = {
  lists: TSendList[] | null;
  value: string[];
  error?: string;
  onChange: (value: string[]) => void;
};

/** The lists of the chosen account (spec §5: To, required, multiple). */
export const ListsField = memo(({ lists, value, error, onChange }: TProps) => {
  if (lists !== null && lists.length === 0) {
    return (
      <Alert
        color={error ? 'red' : 'blue'}
        icon={<IconAddressBook size={18} />}
        title="This account has no mailing lists yet"
      >
        <Text size="sm">
          Emails go to the members of a mailing list.{' '}
          {/* The form's first-error focus lands here when the lists are what is missing. */}
          <Anchor component={Link} to="/mailing-lists" size="sm" id={fieldId('to')}>
            Create a list on Mailing Lists
          </Anchor>{' '}
          and add members to it, then come back here.
        </Text>
        {error && (
          <Text size="sm" c="red" mt={4}>
            {error}
          </Text>
        )}
      </Alert>
    );
  }
  const chosen = new Set(value);
  const subscribed = (lists ?? [])
    .filter((list) => chosen.has(String(list.id)))
    .reduce((sum, list) => sum + list.subscribed, 0);
  return (
    <MultiSelect
      id={fieldId('to')}
      label="Mailing lists"
      comboboxProps={OPTIONS_WHILE_OPEN}
      required
      placeholder={lists === null ? 'Loading the lists…' : value.length === 0 ? 'Choose one or more lists' : undefined}
      leftSection={<IconUsers size={16} aria-hidden />}
      data={(lists ?? []).map((list) => ({ value: String(list.id), label: listLabel(list) }))}
      value={value}
      onChange={onChange}
      disabled={lists === null}
      searchable
      clearable
      nothingFoundMessage="No list by that name"
      error={error}
      description={
        value.length > 0
          ? `${subscribed.toLocaleString('en-US')} subscribed in total; an address on several lists gets the email once.`
          : undefined
      }
    />
  );
});

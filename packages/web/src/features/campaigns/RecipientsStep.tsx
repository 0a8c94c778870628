import { Button, Group, Paper, Stack, Tabs, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import {
  CAMPAIGN_MESSAGES,
  type TCampaignDraft,
  type TCampaignRecipientInput,
  verificationApi,
} from '@sendwell/contracts';
import { IconPlus } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { callRoute } from '../../app/api';
import { showError } from '../../app/errors';
import { useCampaignMutation } from './campaigns.queries';
import { RecipientSources } from './RecipientSources';
import { FileUpload } from './RecipientsFile';
import { RecipientLists } from './RecipientsLists';
import { ManualRows } from './RecipientsManual';
import { type TVerifyOffer, VerifyOfferModal } from './VerifyOfferModal';

const saved = (message: string) =>
  notifications.show({ color: 'green', title: 'Success!', message, position: 'top-center' });

/**
 * Step 2 (spec §2 Recipients): recipients from CSV files, typed in, or from mailing lists,
 * each a source of its own in the list of files. The spec's states: the first file (nothing
 * yet: the forms, and Skip), the list of files (with Import new), and import new (the forms
 * again, under the list). A second file adds to the first; a file can be removed.
 */
export const RecipientsStep = ({ draft, onSaved }: { draft: TCampaignDraft; onSaved: () => void }) => {
  const temporary = draft.temporaryKey;
  const { count, files, duplicates } = draft.recipients;
  const save = useCampaignMutation('saveRecipients');
  const addLists = useCampaignMutation('addRecipientLists');
  const remove = useCampaignMutation('removeRecipients');
  const [isImporting, setIsImporting] = useState(false);
  // A new form for each file, so the next one starts empty.
  const [formKey, setFormKey] = useState(0);
  const [offer, setOffer] = useState<TVerifyOffer | null>(null);
  const priceVerification = useMutation({
    mutationFn: (emails: string[]) => callRoute(verificationApi.textStore, { body: { emails: emails.join('\n') } }),
    onError: showError,
  });
  const added = (message: string) => {
    saved(message);
    setIsImporting(false);
    setFormKey((key) => key + 1);
  };
  const store = (
    recipients: TCampaignRecipientInput[],
    {
      removeGeneric = false,
      verify = false,
      fileName = '',
      source = 'file' as const,
    }: { removeGeneric?: boolean; verify?: boolean; fileName?: string; source?: 'file' | 'manual' } = {},
  ) =>
    save.mutate(
      { body: { temporary, recipients, removeGeneric, fileName, source } },
      {
        onSuccess: ({ message }) => {
          added(message);
          if (!verify) return;
          const emails = recipients.map((recipient) => recipient.email);
          priceVerification.mutate(emails, { onSuccess: ({ data }) => setOffer({ emails, stored: data }) });
        },
        onError: showError,
      },
    );
  const isFirst = files.length === 0;
  return (
    <Stack>
      {!isFirst && (
        <RecipientSources
          files={files}
          duplicates={duplicates}
          isRemoving={remove.isPending}
          onRemove={(index) =>
            remove.mutate(
              { body: { temporary, index } },
              {
                onSuccess: (answer) =>
                  saved(`${(answer.removed as number).toLocaleString('en-US')} recipients removed.`),
                onError: () => showError(new Error(CAMPAIGN_MESSAGES.removeFailed)),
              },
            )
          }
        />
      )}
      {isFirst || isImporting ? (
        <Paper withBorder p="md" radius="md" key={formKey}>
          <Tabs defaultValue="file">
            <Tabs.List>
              <Tabs.Tab value="file">File Upload</Tabs.Tab>
              <Tabs.Tab value="manual">Add Recipients Manually</Tabs.Tab>
              <Tabs.Tab value="lists">From Mailing Lists</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="file" pt="md">
              <FileUpload onRecipients={store} isSaving={save.isPending} />
            </Tabs.Panel>
            <Tabs.Panel value="manual" pt="md">
              <ManualRows onRecipients={(rows) => store(rows, { source: 'manual' })} isSaving={save.isPending} />
            </Tabs.Panel>
            <Tabs.Panel value="lists" pt="md">
              <RecipientLists
                accountId={draft.start.accountId}
                addedListIds={files.flatMap((file) => (file.list_id === null ? [] : [file.list_id]))}
                isSaving={addLists.isPending}
                onLists={(listIds) =>
                  addLists.mutate(
                    { body: { temporary, listIds } },
                    { onSuccess: ({ message }) => added(message), onError: showError },
                  )
                }
              />
            </Tabs.Panel>
          </Tabs>
          {!isFirst && (
            <Group justify="flex-end" mt="md">
              <Button variant="default" onClick={() => setIsImporting(false)}>
                Cancel
              </Button>
            </Group>
          )}
        </Paper>
      ) : (
        <Group>
          <Button variant="light" leftSection={<IconPlus size={16} aria-hidden />} onClick={() => setIsImporting(true)}>
            Import new
          </Button>
        </Group>
      )}
      <VerifyOfferModal offer={offer} onClose={() => setOffer(null)} />
      <Group justify="space-between">
        <Text role="status" data-testid="recipient-count">
          {count > 0 ? `${count.toLocaleString('en-US')} recipients in this campaign.` : 'No recipients yet.'}
        </Text>
        <Group gap="xs">
          {/* Skip only while there is no file (spec): the campaign cannot start without recipients. */}
          {isFirst && (
            <Button
              variant="default"
              loading={save.isPending}
              onClick={() =>
                save.mutate(
                  { body: { temporary, recipients: [], skip: true } },
                  { onSuccess: onSaved, onError: showError },
                )
              }
            >
              Skip
            </Button>
          )}
          <Button onClick={onSaved} disabled={count === 0 || save.isPending}>
            Next
          </Button>
        </Group>
      </Group>
    </Stack>
  );
};

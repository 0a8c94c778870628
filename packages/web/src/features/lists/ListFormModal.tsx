import { Group, Modal, NativeSelect, Textarea, TextInput } from '@mantine/core';
import {
  LIST_MESSAGES,
  type TMailingList,
  type TSendingAccount,
  ZCreateListRequest,
  ZUpdateListRequest,
} from '@sendwell/contracts';
import { type FormEvent, type ReactNode, useState } from 'react';
import type { z } from 'zod';
import { firstIssueByField } from '../../app/forms';
import { DialogActions } from '../../components/DialogActions';
import { FormStack } from '../../components/FormStack';
import { QueryStatus } from '../../components/QueryStatus';
import { NO_FAILURE, saveOptions, type TFormFailure } from './list-forms';
import { defaultAccountOf, listDomainOf } from './lists.format';
import { useCreateList, useListInfo, useUpdateList } from './lists.queries';
import { useRetained } from './useRetained';

export type TListFormState = { mode: 'create' } | { mode: 'edit'; list: TMailingList } | null;

type TValues = { alias: string; name: string; description: string };

type TSave<TRequest> = (request: TRequest, options: ReturnType<typeof saveOptions>) => void;

const useFormState = (initial: TValues, onClose: () => void) => {
  const [values, setValues] = useState(initial);
  const [failure, setFailure] = useState<TFormFailure>(NO_FAILURE);
  return {
    values,
    failure,
    /** Checks the request by its schema (each field's first problem beside it), then saves it. */
    save: <TRequest,>(schema: z.ZodType<TRequest>, request: TRequest, save: TSave<TRequest>) => {
      const parsed = schema.safeParse(request);
      if (!parsed.success) {
        setFailure({ fields: firstIssueByField(parsed.error.issues), message: LIST_MESSAGES.formInvalid });
        return;
      }
      save(request, saveOptions(onClose, setFailure));
    },
    update: (patch: Partial<TValues>) => {
      setValues((current) => ({ ...current, ...patch }));
      setFailure((current) => ({
        message: current.message,
        fields: Object.fromEntries(Object.entries(current.fields).filter(([field]) => !(field in patch))),
      }));
    },
  };
};

type TListForm = ReturnType<typeof useFormState>;

/** The list's own fields, bound to the form's values and each field's problem. */
const ListFields = ({
  form: { values, failure, update },
  domain,
  account,
}: {
  form: TListForm;
  domain: string;
  /** The account picker on create, the account's name (read-only) on edit. */
  account: ReactNode;
}) => (
  <>
    {account}
    <Group align="flex-start" gap="xs" grow wrap="nowrap">
      <TextInput
        label="Alias"
        required
        data-autofocus
        value={values.alias}
        error={failure.fields.alias}
        onChange={(event) => update({ alias: event.currentTarget.value })}
      />
      <TextInput label="Domain" value={domain} readOnly variant="filled" leftSection="@" />
    </Group>
    <TextInput
      label="Name"
      required
      value={values.name}
      error={failure.fields.name}
      onChange={(event) => update({ name: event.currentTarget.value })}
    />
    <Textarea
      label="Description"
      rows={3}
      value={values.description}
      error={failure.fields.description}
      onChange={(event) => update({ description: event.currentTarget.value })}
    />
  </>
);

const CreateListForm = ({ accounts, onClose }: { accounts: TSendingAccount[]; onClose: () => void }) => {
  const create = useCreateList();
  const [accountId, setAccountId] = useState(() => defaultAccountOf(accounts)?.id ?? 0);
  const form = useFormState({ alias: '', name: '', description: '' }, onClose);
  const account = accounts.find((candidate) => candidate.id === accountId);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const request = { accountId, ...form.values };
    form.save(ZCreateListRequest, request, create.mutate);
  };

  return (
    <FormStack onSubmit={submit} error={form.failure.message}>
      <ListFields
        form={form}
        domain={account ? listDomainOf(account) : ''}
        account={
          <NativeSelect
            label="Account"
            required
            value={String(accountId)}
            error={form.failure.fields.accountId}
            onChange={(event) => setAccountId(Number(event.currentTarget.value))}
            data={accounts.map((candidate) => ({ value: String(candidate.id), label: candidate.name }))}
          />
        }
      />
      <DialogActions onCancel={onClose} isPending={create.isPending} submitLabel="Create List" />
    </FormStack>
  );
};

const EditListForm = ({ list, onClose }: { list: TMailingList; onClose: () => void }) => {
  const update = useUpdateList(list.id);
  const form = useFormState({ alias: list.alias, name: list.name, description: list.description }, onClose);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const request = { accountId: list.account_id, ...form.values, domain: list.domain };
    form.save(ZUpdateListRequest, request, update.mutate);
  };

  return (
    <FormStack onSubmit={submit} error={form.failure.message}>
      <ListFields
        form={form}
        domain={list.domain}
        account={<TextInput label="Account" value={list.account_name} readOnly variant="filled" />}
      />
      <DialogActions onCancel={onClose} isPending={update.isPending} submitLabel="Save" />
    </FormStack>
  );
};

/** The list as stored now, not as the table row had it when the page loaded. */
const EditListLoader = ({ listId, onClose }: { listId: number; onClose: () => void }) => {
  const info = useListInfo(listId);
  if (info.isPending || info.isError) {
    return <QueryStatus query={info} label="Loading the list" failed="The list could not be loaded" />;
  }
  return <EditListForm list={info.data} onClose={onClose} />;
};

type TProps = {
  state: TListFormState;
  accounts: TSendingAccount[];
  onClose: () => void;
};

/** Create List and Edit List (spec §2 screen 5): alias with the account's read-only domain, name, description. */
export const ListFormModal = ({ state, accounts, onClose }: TProps) => {
  const shown = useRetained(state);
  return (
    <Modal opened={state !== null} onClose={onClose} title={shown?.mode === 'edit' ? 'Edit List' : 'Create List'}>
      {shown?.mode === 'create' && <CreateListForm accounts={accounts} onClose={onClose} />}
      {shown?.mode === 'edit' && <EditListLoader listId={shown.list.id} onClose={onClose} />}
    </Modal>
  );
};

import { Button, Modal, Stack, Switch, Text, TextInput } from '@mantine/core';
import { type TMailingList, type TMember, ZAddMemberRequest } from '@sendwell/contracts';
import { type FormEvent, useState } from 'react';
import { openSuccessDialog } from '../../app/dialogs';
import { firstIssueByField } from '../../app/forms';
import { DialogActions } from '../../components/DialogActions';
import { FormStack } from '../../components/FormStack';
import { QueryStatus } from '../../components/QueryStatus';
import { NO_FAILURE, saveOptions, type TFormFailure } from './list-forms';
import { useAddMember, useBulkDeleteMembers, useDeleteMember, useMember, useUpdateMember } from './lists.queries';
import { useRetained } from './useRetained';

const AddMemberForm = ({ list, onClose }: { list: TMailingList; onClose: () => void }) => {
  const add = useAddMember();
  const [email, setEmail] = useState('');
  const [fullname, setFullname] = useState('');
  const [isSubscribed, setIsSubscribed] = useState(true);
  const [failure, setFailure] = useState<TFormFailure>(NO_FAILURE);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const request = { listId: list.id, email: email.trim(), fullname, subscribe: isSubscribed ? 1 : 0 };
    const parsed = ZAddMemberRequest.safeParse(request);
    if (!parsed.success) {
      setFailure({ fields: firstIssueByField(parsed.error.issues), message: null });
      return;
    }
    add.mutate(request, saveOptions(onClose, setFailure));
  };

  return (
    <FormStack onSubmit={submit} error={failure.message}>
      <TextInput
        label="Email"
        type="email"
        required
        data-autofocus
        value={email}
        error={failure.fields.email}
        onChange={(event) => {
          setEmail(event.currentTarget.value);
          setFailure(NO_FAILURE);
        }}
      />
      <TextInput
        label="Name"
        value={fullname}
        error={failure.fields.fullname}
        onChange={(event) => setFullname(event.currentTarget.value)}
      />
      <Switch
        label="Subscribed"
        checked={isSubscribed}
        onChange={(event) => setIsSubscribed(event.currentTarget.checked)}
      />
      <DialogActions onCancel={onClose} isPending={add.isPending} submitLabel="Add Member" />
    </FormStack>
  );
};

export const AddMemberModal = ({
  list,
  opened,
  onClose,
}: {
  list: TMailingList;
  opened: boolean;
  onClose: () => void;
}) => (
  <Modal opened={opened} onClose={onClose} title={`Add a member to ${list.address}`}>
    {/* The modal mounts its body only while open, so each opening starts a fresh form. */}
    <AddMemberForm list={list} onClose={onClose} />
  </Modal>
);

const EditMemberForm = ({ member, onClose }: { member: TMember; onClose: () => void }) => {
  const update = useUpdateMember(member.id);
  const [fullname, setFullname] = useState(member.fullname);
  const [isSubscribed, setIsSubscribed] = useState(member.subscribe === 1);
  const [failure, setFailure] = useState<TFormFailure>(NO_FAILURE);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate(
      { account_id: member.account_id, email: member.email, fullname, subscribe: isSubscribed ? 1 : 0 },
      saveOptions(onClose, setFailure),
    );
  };

  return (
    <FormStack onSubmit={submit} error={failure.message}>
      {/* Spec §5: the address is what the member is; it is not edited, only shown. */}
      <TextInput label="Email" value={member.email} readOnly variant="filled" />
      <TextInput
        label="Name"
        data-autofocus
        value={fullname}
        error={failure.fields.fullname}
        onChange={(event) => setFullname(event.currentTarget.value)}
      />
      {/* A double opt-in signup waits for the person: only they can confirm, from the email. */}
      <Switch
        label="Subscribed"
        checked={isSubscribed}
        disabled={member.unconfirmed}
        description={
          member.unconfirmed ? 'Unconfirmed: waiting for the person to open the confirmation link.' : undefined
        }
        onChange={(event) => setIsSubscribed(event.currentTarget.checked)}
      />
      <DialogActions onCancel={onClose} isPending={update.isPending} submitLabel="Save" />
    </FormStack>
  );
};

/** The member as stored now; the table row may be older. */
const EditMemberLoader = ({ memberId, onClose }: { memberId: number; onClose: () => void }) => {
  const member = useMember(memberId);
  if (member.isPending || member.isError) {
    return <QueryStatus query={member} label="Loading the member" failed="The member could not be loaded" />;
  }
  return <EditMemberForm member={member.data} onClose={onClose} />;
};

export const EditMemberModal = ({ member, onClose }: { member: TMember | null; onClose: () => void }) => {
  const shown = useRetained(member);
  return (
    <Modal opened={member !== null} onClose={onClose} title="Edit Member">
      {shown && <EditMemberLoader memberId={shown.id} onClose={onClose} />}
    </Modal>
  );
};

export const DeleteMemberModal = ({ member: current, onClose }: { member: TMember | null; onClose: () => void }) => {
  const deleteMember = useDeleteMember();
  const member = useRetained(current);
  const confirm = () => {
    if (!member) return;
    deleteMember.mutate(
      { listId: member.list_id, id: member.id, email: member.email },
      {
        onSuccess: ({ message }) => {
          openSuccessDialog(message);
          onClose();
        },
      },
    );
  };
  return (
    <Modal opened={current !== null} onClose={onClose} title="Delete member?">
      <Stack>
        <Text>
          <strong>{member?.email}</strong> will be removed from this list.
        </Text>
        <DialogActions onCancel={onClose} isPending={deleteMember.isPending}>
          <Button color="red" loading={deleteMember.isPending} onClick={confirm}>
            Delete
          </Button>
        </DialogActions>
      </Stack>
    </Modal>
  );
};

type TBulkDeleteProps = {
  list: TMailingList;
  memberIds: number[];
  opened: boolean;
  onClose: () => void;
  onDeleted: () => void;
};

export const BulkDeleteMembersModal = ({ list, memberIds, opened, onClose, onDeleted }: TBulkDeleteProps) => {
  const bulkDelete = useBulkDeleteMembers();
  const count = memberIds.length;
  const confirm = () =>
    bulkDelete.mutate(
      { memberId: memberIds, accountId: list.account_id, listId: list.id },
      {
        onSuccess: ({ message }) => {
          openSuccessDialog(message);
          onDeleted();
          onClose();
        },
      },
    );
  return (
    <Modal opened={opened} onClose={onClose} title="Delete the selected members?">
      <Stack>
        <Text>
          {count} {count === 1 ? 'member' : 'members'} will be removed from <strong>{list.address}</strong>.
        </Text>
        <DialogActions onCancel={onClose} isPending={bulkDelete.isPending}>
          <Button color="red" loading={bulkDelete.isPending} onClick={confirm}>
            Delete {count} {count === 1 ? 'member' : 'members'}
          </Button>
        </DialogActions>
      </Stack>
    </Modal>
  );
};

import { Alert, Button, Group, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { modals } from '@mantine/modals';
import { formatDateTime, type TProfile, ZEmailChangeRequest, ZNewPassword, ZProfileName } from '@sendwell/contracts';
import { IconClock, IconDeviceDesktopOff, IconKey, IconMail, IconUser } from '@tabler/icons-react';
import { z } from 'zod';
import { checkPasswordConfirmation } from '../../app/forms';
import { showSuccess } from '../../app/toasts';
import { useZodForm } from '../../app/useZodForm';
import { PageHeader } from '../../components/PageHeader';
import { PasswordField } from '../../components/PasswordField';
import { QueryStatus } from '../../components/QueryStatus';
import { SettingsForm, SettingsSection } from '../../components/SettingsSection';
import { TimeZoneSelect } from '../../components/TimeZoneSelect';
import {
  useCancelEmailChange,
  useChangeEmail,
  useChangePassword,
  useProfile,
  useSignOutEverywhere,
  useUpdateProfile,
} from './profile.queries';

const ZNameForm = z.object({ name: ZProfileName });

const NameForm = ({ profile }: { profile: TProfile }) => {
  const update = useUpdateProfile();
  const form = useZodForm(ZNameForm, {
    initialValues: { name: profile.name },
    onSubmit: ({ name }, { fail }) =>
      update.mutate({ name }, { onSuccess: ({ message }) => showSuccess(message), onError: fail }),
  });
  return (
    <SettingsForm
      icon={<IconUser size={18} aria-hidden />}
      title="Name"
      description="How Sendwell greets you."
      onSubmit={form.onSubmit}
      submitLabel="Save name"
      isPending={update.isPending}
    >
      <TextInput label="Full Name" autoComplete="name" {...form.inputProps('name')} />
    </SettingsForm>
  );
};

const TimeZoneForm = ({ profile }: { profile: TProfile }) => {
  const update = useUpdateProfile();
  const form = useZodForm(z.object({ time_zone: z.string() }), {
    initialValues: { time_zone: profile.time_zone },
    onSubmit: ({ time_zone }, { fail }) =>
      update.mutate({ time_zone }, { onSuccess: ({ message }) => showSuccess(message), onError: fail }),
  });
  const chosen = form.values.time_zone;
  return (
    <SettingsForm
      icon={<IconClock size={18} aria-hidden />}
      title="Time zone"
      description="Scheduled emails, drip windows, History, the dashboard’s days, the credit log and notifications all use it."
      onSubmit={form.onSubmit}
      submitLabel="Save time zone"
      isPending={update.isPending}
      isSubmitDisabled={chosen === profile.time_zone}
    >
      <TimeZoneSelect
        label="Time zone"
        value={chosen}
        onChange={(zone) => form.setValue('time_zone', zone)}
        error={form.errors.time_zone}
        description={`It is ${formatDateTime(new Date(), chosen)} there now.`}
        inputWrapperOrder={['label', 'input', 'description', 'error']}
      />
    </SettingsForm>
  );
};

/** A new email waiting for its link, with Cancel (the link then stops working). */
const PendingEmail = ({ profile, pendingEmail }: { profile: TProfile; pendingEmail: string }) => {
  const cancel = useCancelEmailChange();
  return (
    <Alert color="blue" data-testid="profile-pending-email">
      <Stack gap="xs">
        <Text size="sm">
          Waiting for you to open the link we sent to <strong>{pendingEmail}</strong> (it works for 24 hours). Until
          then your email stays {profile.email}. Did not ask for it? Cancel it and change your password.
        </Text>
        <Group>
          <Button
            variant="default"
            size="xs"
            loading={cancel.isPending}
            aria-label={`Cancel the change to ${pendingEmail}`}
            onClick={() => cancel.mutate(undefined, { onSuccess: ({ message }) => showSuccess(message) })}
          >
            Cancel
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
};

const EmailForm = ({ profile }: { profile: TProfile }) => {
  const change = useChangeEmail();
  const form = useZodForm(ZEmailChangeRequest, {
    initialValues: { email: '', current_password: '' },
    onSubmit: (request, { fail }) =>
      change.mutate(request, {
        onSuccess: ({ message }) => {
          showSuccess(message);
          form.setValue('email', '');
          form.setValue('current_password', '');
        },
        onError: fail,
      }),
  });
  return (
    <SettingsForm
      icon={<IconMail size={18} aria-hidden />}
      title="Email"
      description="A new email takes effect once you open the link we mail to it; your current email keeps working until then."
      onSubmit={form.onSubmit}
      submitLabel="Send confirmation link"
      isPending={change.isPending}
    >
      <Text size="sm">
        You sign in with{' '}
        <strong data-testid="profile-email" style={{ overflowWrap: 'anywhere' }}>
          {profile.email}
        </strong>
        .
      </Text>
      {profile.pending_email && <PendingEmail profile={profile} pendingEmail={profile.pending_email} />}
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <TextInput label="New email" type="email" autoComplete="email" {...form.inputProps('email')} />
        <PasswordField
          label="Current password"
          autoComplete="current-password"
          {...form.inputProps('current_password')}
        />
      </SimpleGrid>
    </SettingsForm>
  );
};

const ZPasswordForm = z.object({
  current_password: z.string().min(1, { message: 'Enter your current password.' }),
  password: ZNewPassword,
  confirmation: z.string(),
});

const PasswordForm = () => {
  const change = useChangePassword();
  const form = useZodForm(ZPasswordForm, {
    initialValues: { current_password: '', password: '', confirmation: '' },
    validate: checkPasswordConfirmation,
    onSubmit: (_request, { values, fail }) =>
      change.mutate(
        { current_password: values.current_password, password: values.password },
        {
          onSuccess: ({ message }) => {
            showSuccess(message);
            for (const field of ['current_password', 'password', 'confirmation'] as const) form.setValue(field, '');
          },
          onError: fail,
        },
      ),
  });
  return (
    <SettingsForm
      icon={<IconKey size={18} aria-hidden />}
      title="Password"
      description="Changing it signs out every other device; this one stays signed in."
      onSubmit={form.onSubmit}
      submitLabel="Change password"
      isPending={change.isPending}
    >
      <PasswordField
        label="Current password"
        autoComplete="current-password"
        {...form.inputProps('current_password')}
      />
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <PasswordField
          label="New password"
          autoComplete="new-password"
          description="At least 6 characters."
          inputWrapperOrder={['label', 'input', 'description', 'error']}
          {...form.inputProps('password')}
        />
        <PasswordField label="Confirm new password" autoComplete="new-password" {...form.inputProps('confirmation')} />
      </SimpleGrid>
    </SettingsForm>
  );
};

/** Ends every session, this one too, after asking. */
const SignOutEverywhere = () => {
  const signOut = useSignOutEverywhere();
  const ask = () =>
    modals.openConfirmModal({
      title: 'Sign out everywhere?',
      children: (
        <Text size="sm">
          Every device signed in to your account is signed out, this one too, and the links we mailed to reset your
          password or change your email stop working.
        </Text>
      ),
      labels: { confirm: 'Sign out everywhere', cancel: 'Stay signed in' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        signOut.mutate(undefined, {
          onSuccess: ({ message }) => showSuccess(message, 'Signed out'),
        }),
    });
  return (
    <Group justify="flex-end">
      <Button variant="outline" color="red" loading={signOut.isPending} onClick={ask}>
        Sign out everywhere
      </Button>
    </Group>
  );
};

/** Profile (the user menu's first item): the signed-in user's name, time zone, email and password. */
export const ProfilePage = () => {
  const profile = useProfile();
  return (
    <>
      <PageHeader
        title="Profile"
        description="Your name, the time zone every time is shown in, your email and password."
      />
      <QueryStatus query={profile} label="Loading your profile" failed="Your profile could not be loaded" py="xl" />
      {profile.data && (
        <Stack gap="lg" maw={760}>
          <NameForm profile={profile.data} />
          <TimeZoneForm profile={profile.data} />
          <EmailForm profile={profile.data} />
          <PasswordForm />
          <SettingsSection
            icon={<IconDeviceDesktopOff size={18} aria-hidden />}
            title="Devices"
            description="Lost a device, or think someone knows your password? Sign out everywhere, then change your password."
          >
            <SignOutEverywhere />
          </SettingsSection>
        </Stack>
      )}
    </>
  );
};

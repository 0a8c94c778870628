import { Anchor, Button, Text, TextInput } from '@mantine/core';
import type { ComponentProps, ReactNode } from 'react';
import { Link } from 'react-router';
import { PasswordField } from '../../components/PasswordField';

/**
 * The signed-out forms (sign in, register, reset, contact) ask for little, and nearly all of it
 * is required: an asterisk on each would only add noise and a stray ' *' to each label. A
 * required field says so in its message; an optional one says so in its description.
 */
const REQUIRED = { required: true, withAsterisk: false } as const;

export const RequiredTextInput = (props: ComponentProps<typeof TextInput>) => <TextInput {...REQUIRED} {...props} />;

export const RequiredPasswordField = (props: ComponentProps<typeof PasswordField>) => (
  <PasswordField {...REQUIRED} {...props} />
);

/** The address a person signs in with, as the browser's autofill knows it. */
export const EmailField = (props: ComponentProps<typeof TextInput>) => (
  <RequiredTextInput label="Email" type="email" autoComplete="email" {...props} />
);

export const BackToSignIn = () => (
  <Anchor component={Link} to="/login">
    Back to sign in
  </Anchor>
);

/** The foot of a signed-out form: its submit button across the form, and under it where else to go. */
export const AuthSubmit = ({
  isPending,
  children,
  next,
}: {
  isPending: boolean;
  children: ReactNode;
  next: ReactNode;
}) => (
  <>
    <Button type="submit" fullWidth loading={isPending}>
      {children}
    </Button>
    <Text size="sm" ta="center">
      {next}
    </Text>
  </>
);

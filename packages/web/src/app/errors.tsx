import { Button, Group, Stack, Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import { type TLimitDialog, ZLimitDialog } from '@sendwell/contracts';
import { ApiError } from './api';
import { openLimitDialog } from './dialogs';

/**
 * What went wrong, in the terms the spec's error catalogue uses to decide how to show it.
 * `unauthorized` has no UI of its own: the session ends and the router takes the user to /login.
 */
export type TFailure =
  | { kind: 'validation'; messages: string[] }
  | { kind: 'unauthorized' }
  | { kind: 'refused'; message: string }
  | { kind: 'http'; message: string }
  | { kind: 'network'; message: string }
  | { kind: 'cancelled' };

/** The first message of each field, in the order the server listed the fields. */
export const firstFieldMessages = (errors: Record<string, string[]> | undefined): string[] =>
  Object.values(errors ?? {}).flatMap((messages) => (messages[0] ? [messages[0]] : []));

/** The first message of each field, keyed by field, for forms that show errors beside their inputs. */
export const fieldErrors = (error: unknown): Record<string, string> => {
  if (!(error instanceof ApiError) || error.status !== 422) return {};
  const fields: Record<string, string> = {};
  for (const [field, messages] of Object.entries(error.body.errors ?? {})) {
    if (messages[0]) fields[field] = messages[0];
  }
  return fields;
};

export const describeFailure = (error: unknown): TFailure => {
  if (error instanceof ApiError) {
    if (error.status === 401) return { kind: 'unauthorized' };
    if (error.status === 422) {
      const messages = firstFieldMessages(error.body.errors);
      return { kind: 'validation', messages: messages.length > 0 ? messages : [error.body.message] };
    }
    if (error.status < 300) return { kind: 'refused', message: error.body.message };
    return { kind: 'http', message: error.body.message };
  }
  if (error instanceof DOMException && error.name === 'AbortError') return { kind: 'cancelled' };
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'network', message: message || 'The request could not be sent.' };
};

export const isUnauthorized = (error: unknown): boolean => describeFailure(error).kind === 'unauthorized';

/** Several queries failing at once with the same message should not stack identical dialogs. */
const openDialogs = new Set<string>();

const ErrorDialogBody = ({ message, onClose }: { message: string; onClose: () => void }) => (
  <Stack>
    <Text>{message}</Text>
    <Group justify="flex-end">
      <Button onClick={onClose} data-autofocus>
        OK
      </Button>
    </Group>
  </Stack>
);

export const openErrorDialog = (message: string): void => {
  if (openDialogs.has(message)) return;
  openDialogs.add(message);
  const modalId = `error-${openDialogs.size}-${Date.now()}`;
  modals.open({
    modalId,
    title: 'Error!',
    onClose: () => openDialogs.delete(message),
    children: <ErrorDialogBody message={message} onClose={() => modals.close(modalId)} />,
  });
};

const showToast = (message: string, title?: string): void => {
  notifications.show({ color: 'red', title, message, position: 'top-center' });
};

/** The ERR_LIMIT dialog the server sent with an error (out of credit), or null. */
export const limitDialogOf = (error: unknown): TLimitDialog | null => {
  if (!(error instanceof ApiError) || error.body.code !== 'ERR_LIMIT') return null;
  const parsed = ZLimitDialog.safeParse(error.body.errorData);
  return parsed.success ? parsed.data : null;
};

/** The spec's error catalogue (§8), in one place: every screen and the query client report failures here. */
export const showError = (error: unknown): void => {
  // ERR_LIMIT: the server's warning dialog (title, message, buttons, where confirm goes), not "Error!".
  const limit = limitDialogOf(error);
  if (limit) {
    openLimitDialog(limit);
    return;
  }
  const failure = describeFailure(error);
  switch (failure.kind) {
    case 'validation':
      for (const message of failure.messages) showToast(message);
      return;
    case 'refused':
      notifications.show({ color: 'red', title: 'Error', message: failure.message, position: 'top-center' });
      return;
    case 'http':
      openErrorDialog(failure.message);
      return;
    case 'network':
      showToast(failure.message, 'Connection problem');
      return;
    case 'unauthorized':
    case 'cancelled':
      return;
  }
};

import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import type { TLimitDialog } from '@sendwell/contracts';
import { IconExternalLink } from '@tabler/icons-react';

/** Mantine's button colours by the names the server uses ('blue' is the theme's own). */
const buttonColor = (color: string) => (color === 'blue' ? undefined : color);

let opened = 0;

/**
 * 'Success!' with OK (spec §8 "Successes show 'Success!' with OK"): a dialog the user
 * dismisses, for the sending document's screens. `onClose` runs however it is closed.
 */
export const openSuccessDialog = (
  message: string,
  { title = 'Success!', onClose }: { title?: string; onClose?: () => void } = {},
) => {
  opened += 1;
  const modalId = `success-${opened}`;
  modals.open({
    modalId,
    title,
    onClose,
    children: (
      <Stack>
        <Text size="sm" data-testid="success-message">
          {message}
        </Text>
        <Group justify="flex-end">
          <Button onClick={() => modals.close(modalId)} data-autofocus>
            OK
          </Button>
        </Group>
      </Stack>
    ),
  });
};

/**
 * The spec's ERR_LIMIT dialog (§8), as the server words it: its title, message and buttons.
 * On confirm a verification's `url` is where the browser goes; a test mail's `link` opens in a
 * new tab. Cancel only closes it.
 */
export const openLimitDialog = (dialog: TLimitDialog) => {
  opened += 1;
  const modalId = `limit-${opened}`;
  const confirm = () => {
    modals.close(modalId);
    if (dialog.url) window.location.assign(dialog.url);
    else if (dialog.link) window.open(dialog.link, '_blank', 'noopener');
  };
  modals.open({
    modalId,
    title: dialog.title,
    children: (
      <Stack>
        <Alert color="orange" variant="light" data-testid="limit-message">
          {dialog.message}
        </Alert>
        <Group justify="flex-end">
          <Button variant="default" color={buttonColor(dialog.cancelButtonColor)} onClick={() => modals.close(modalId)}>
            {dialog.cancelButtonText}
          </Button>
          <Button
            color={buttonColor(dialog.confirmButtonColor)}
            rightSection={!dialog.url && dialog.link ? <IconExternalLink size={14} aria-hidden /> : undefined}
            onClick={confirm}
            data-autofocus
          >
            {dialog.confirmButtonText}
          </Button>
        </Group>
      </Stack>
    ),
  });
};

import { notifications } from '@mantine/notifications';

/**
 * A change that worked, said briefly at the top of the screen. The spec's word is 'Success!';
 * a screen that names the outcome ('Done', 'Erased') passes its own title, or `null` for the
 * message alone.
 */
export const showSuccess = (message: string, title: string | null = 'Success!') =>
  notifications.show({ color: 'green', title: title ?? undefined, message, position: 'top-center' });

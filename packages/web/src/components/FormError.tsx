import { Alert } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';

/**
 * Why a form (or a link's action) was refused, above its fields (a field's own message stays
 * beside the field); nothing when it was not.
 */
export const FormError = ({ message, title }: { message: string | null | undefined; title?: string }) =>
  message ? (
    <Alert color="red" icon={<IconAlertCircle size={18} />} title={title}>
      {message}
    </Alert>
  ) : null;

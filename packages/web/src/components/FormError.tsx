import { Alert } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';

/** Why a form was refused, above its fields (a field's own message stays beside the field); nothing when it was not. */
export const FormError = ({ message }: { message: string | null | undefined }) =>
  message ? (
    <Alert color="red" icon={<IconAlertCircle size={18} />}>
      {message}
    </Alert>
  ) : null;

import { Button, Group } from '@mantine/core';
import type { ReactNode } from 'react';

type TProps = {
  onCancel: () => void;
  /** 'Back' where leaving returns to a screen rather than closing a question. */
  cancelLabel?: 'Cancel' | 'Back';
  /** While the action runs, Cancel waits for it: the answer would land in a closed dialog. */
  isPending?: boolean;
  /** A form's submit button: its label (it spins while isPending). */
  submitLabel?: string;
  /** The action's own button(s), right of Cancel, where it is not a plain submit. */
  children?: ReactNode;
};

/** The foot of a dialog or a small form: Cancel (or Back), then what it does, at the right. */
export const DialogActions = ({ onCancel, cancelLabel = 'Cancel', isPending, submitLabel, children }: TProps) => (
  <Group justify="flex-end">
    <Button variant="default" onClick={onCancel} disabled={isPending}>
      {cancelLabel}
    </Button>
    {children}
    {submitLabel && (
      <Button type="submit" loading={isPending}>
        {submitLabel}
      </Button>
    )}
  </Group>
);

import { type MantineSpacing, Stack } from '@mantine/core';
import type { FormEvent, ReactNode } from 'react';
import { FormError } from './FormError';

type TProps = {
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
  /** Why the form was refused, shown above its fields (FormError). */
  error?: string | null;
  gap?: MantineSpacing;
  children: ReactNode;
  'aria-label'?: string;
  'aria-labelledby'?: string;
};

/**
 * A form of this app: the browser's own checks off (each field shows the form's message
 * instead), the fields stacked, and why a submit was refused above them.
 */
export const FormStack = ({ onSubmit, error, gap, children, ...name }: TProps) => (
  <form onSubmit={onSubmit} noValidate {...name}>
    <Stack gap={gap}>
      <FormError message={error} />
      {children}
    </Stack>
  </form>
);

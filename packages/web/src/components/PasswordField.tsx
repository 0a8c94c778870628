import { PasswordInput, type PasswordInputProps } from '@mantine/core';

/**
 * Mantine names its show/hide button "Toggle password visibility", which also answers to a
 * search for the field's own label ("Password"); a name without that word keeps `getByLabel`
 * and screen-reader field lists pointing at the input alone.
 */
export const PasswordField = (props: PasswordInputProps) => (
  <PasswordInput visibilityToggleButtonProps={{ 'aria-label': 'Show typed characters' }} {...props} />
);

import { Alert, Anchor } from '@mantine/core';
import { Link } from 'react-router';

/** The spec's words when a job needs more credits than are usable, with the way to buy them. */
export const ShortOfCreditsAlert = (props: { 'data-testid'?: string }) => (
  <Alert color="red" {...props}>
    To complete this process; please buy credits.{' '}
    <Anchor component={Link} to="/settings/subscription">
      Buy Credits
    </Anchor>
  </Alert>
);

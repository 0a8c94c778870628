import { Button } from '@mantine/core';
import { IconServer } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { EmptyState } from '../../components/EmptyState';

/** A screen that needs a sending account, shown before there is one: why it needs one, and where to add it. */
export const NoAccounts = ({ why, icon = IconServer }: { why: ReactNode; icon?: typeof IconServer }) => (
  <EmptyState
    icon={icon}
    title="Connect a sending account first."
    action={
      <Button component={Link} to="/settings/accounts">
        Go to Sending Accounts
      </Button>
    }
  >
    {why}
  </EmptyState>
);

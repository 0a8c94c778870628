import { Burger, Group, UnstyledButton } from '@mantine/core';
import { Link } from 'react-router';
import { Brand } from '../../components/Brand';
import { CreditBalance } from '../../features/credits/CreditBalance';
import { NotificationBell } from '../../features/notifications/NotificationBell';
import { useSignedInUser } from '../session';
import { RealtimeStatus } from './RealtimeStatus';
import { UserMenu } from './UserMenu';

type TProps = {
  isNavbarOpened: boolean;
  onToggleNavbar: () => void;
};

export const AppHeader = ({ isNavbarOpened, onToggleNavbar }: TProps) => {
  // A single-company install (`BILLING=off`) has no credits to show.
  const { billing } = useSignedInUser();
  return (
    <Group h="100%" px="md" justify="space-between" wrap="nowrap">
      <Group gap="sm" wrap="nowrap">
        <Burger
          opened={isNavbarOpened}
          onClick={onToggleNavbar}
          hiddenFrom="sm"
          size="sm"
          aria-label={isNavbarOpened ? 'Close navigation' : 'Open navigation'}
        />
        <UnstyledButton component={Link} to="/" aria-label="Sendwell home">
          <Brand />
        </UnstyledButton>
      </Group>
      <Group gap="md" wrap="nowrap">
        <RealtimeStatus />
        {billing && <CreditBalance />}
        <NotificationBell />
        <UserMenu />
      </Group>
    </Group>
  );
};

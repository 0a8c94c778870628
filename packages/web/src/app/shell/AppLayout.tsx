import { AppShell } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { Outlet } from 'react-router';
import { AnnouncementProvider } from '../../features/announcements/AnnouncementModal';
import { useTicketEvents } from '../../features/support/support.queries';
import { useRealtimeConnection } from '../realtime';
import { expireSession } from '../session';
import { AppHeader } from './AppHeader';
import { AppNavbar } from './AppNavbar';
import { useMenuItemsFocusTheirButton } from './menuFocus';

/** The signed-in frame around every screen; mounting it opens the realtime socket, leaving it closes it. */
export const AppLayout = () => {
  const queryClient = useQueryClient();
  const [isNavbarOpened, navbar] = useDisclosure(false);
  useMenuItemsFocusTheirButton();
  useRealtimeConnection({
    onSignedOut: () => expireSession(queryClient),
    onReconnected: () => void queryClient.invalidateQueries(),
  });
  useTicketEvents();

  return (
    <AnnouncementProvider>
      <AppShell
        header={{ height: 60 }}
        navbar={{ width: 250, breakpoint: 'sm', collapsed: { mobile: !isNavbarOpened } }}
        padding="lg"
      >
        <AppShell.Header>
          <AppHeader isNavbarOpened={isNavbarOpened} onToggleNavbar={navbar.toggle} />
        </AppShell.Header>
        <AppShell.Navbar>
          <AppNavbar onNavigate={navbar.close} />
        </AppShell.Navbar>
        <AppShell.Main bg="var(--mantine-color-gray-0)">
          <Outlet />
        </AppShell.Main>
      </AppShell>
    </AnnouncementProvider>
  );
};

import { MantineProvider } from '@mantine/core';
import { ModalsProvider } from '@mantine/modals';
import { Notifications } from '@mantine/notifications';
import { type QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { cssVariablesResolver, theme } from './theme';

type TProps = {
  queryClient: QueryClient;
  children: ReactNode;
  /** 'test' turns off Mantine's transitions and portals so component tests see the final DOM at once. */
  env?: 'default' | 'test';
};

export const AppProviders = ({ queryClient, children, env = 'default' }: TProps) => (
  <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} env={env}>
    <QueryClientProvider client={queryClient}>
      <ModalsProvider>
        <Notifications position="top-center" />
        {children}
      </ModalsProvider>
    </QueryClientProvider>
  </MantineProvider>
);

import { RouterProvider } from 'react-router';
import { prefetchCsrfToken } from './api';
import { AppProviders } from './providers';
import { createQueryClient } from './queryClient';
import { createRouter } from './router';

const queryClient = createQueryClient();
const router = createRouter();
prefetchCsrfToken();

export const App = () => (
  <AppProviders queryClient={queryClient}>
    <RouterProvider router={router} />
  </AppProviders>
);

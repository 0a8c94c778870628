import type { QueryClient } from '@tanstack/react-query';
import { type RenderResult, render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter } from 'react-router';
import { AppProviders } from '../app/providers';
import { createQueryClient } from '../app/queryClient';

/** Renders with the app's real providers and query client, so global error handling is under test too. */
export const renderWithApp = (
  ui: ReactNode,
  queryClient: QueryClient = createQueryClient(),
  initialEntries?: string[],
): RenderResult =>
  render(
    <AppProviders queryClient={queryClient} env="test">
      <MemoryRouter {...(initialEntries ? { initialEntries } : {})}>{ui}</MemoryRouter>
    </AppProviders>,
  );

export const jsonResponse = (body: unknown, status = 200): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

/** The URL of every call the stubbed fetch received, parsed, for asserting on query parameters. */
export const requestedUrls = (fetchMock: { mock: { calls: unknown[][] } }): URL[] =>
  fetchMock.mock.calls.map(([input]) => new URL(String(input), 'http://localhost'));

import type { QueryClient } from '@tanstack/react-query';
import { type RenderResult, render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter } from 'react-router';
import { AppProviders } from '../app/providers';
import { createQueryClient } from '../app/queryClient';

/** The query clients the current test rendered with, stopped after it (setup.ts). */
const rendered = new Set<QueryClient>();

/** Renders with the app's real providers and query client, so global error handling is under test too. */
export const renderWithApp = (
  ui: ReactNode,
  queryClient: QueryClient = createQueryClient(),
  initialEntries?: string[],
): RenderResult => {
  rendered.add(queryClient);
  return render(
    <AppProviders queryClient={queryClient} env="test">
      <MemoryRouter {...(initialEntries ? { initialEntries } : {})}>{ui}</MemoryRouter>
    </AppProviders>,
  );
};

/**
 * Stops what a test's query clients still have in flight or waiting (a retry, a refetch):
 * left running, a query of one test fetched during the next, from that test's stubbed API,
 * and its error toast appeared there (seen in CI: "No stubbed answer for GET
 * /api/mailing-lists/5/members" in the accounts tests, whose dialog then had two Close buttons).
 */
export const stopQueryClients = () => {
  for (const client of rendered) {
    void client.cancelQueries();
    client.clear();
    client.unmount();
  }
  rendered.clear();
};

export const jsonResponse = (body: unknown, status = 200): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

/** The URL of every call the stubbed fetch received, parsed, for asserting on query parameters. */
export const requestedUrls = (fetchMock: { mock: { calls: unknown[][] } }): URL[] =>
  fetchMock.mock.calls.map(([input]) => new URL(String(input), 'http://localhost'));

import type { TUserInformation } from '@sendwell/contracts';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '../../app/queryClient';
import { USER_QUERY_KEY } from '../../app/session';
import { callsTo, stubApi } from '../../test/api';
import { jsonResponse, renderWithApp } from '../../test/render';
import { buildUser } from '../../test/user';
import { ContactPage } from './ContactPage';

const CONTACT = 'POST /api/contact-us';

const renderPage = (user: TUserInformation | null = buildUser()) => {
  const queryClient = createQueryClient();
  queryClient.setQueryData(USER_QUERY_KEY, user);
  renderWithApp(<ContactPage />, queryClient);
};

const type = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });
const fieldValue = (label: string) => screen.getByLabelText<HTMLInputElement>(label).value;

describe('ContactPage', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('checks every field before sending', async () => {
    const fetchMock = stubApi({ [CONTACT]: { status: true, message: 'Thanks.' } });
    renderPage(null);
    type('Message', 'short');

    fireEvent.click(screen.getByRole('button', { name: 'Send' }));

    expect(await screen.findByText('The name field is required.')).toBeTruthy();
    expect(screen.getByText('The email field is required.')).toBeTruthy();
    expect(screen.getByText('The subject field is required.')).toBeTruthy();
    expect(screen.getByText('Please write at least 10 characters.')).toBeTruthy();
    expect(callsTo(fetchMock, CONTACT)).toHaveLength(0);
  });

  it('fills in who is signed in, sends, and clears only the message', async () => {
    const fetchMock = stubApi({
      [CONTACT]: { status: true, message: 'Thank you. We have your message and will answer by email.' },
    });
    renderPage(buildUser({ name: 'Ada Lovelace', email: 'ada@example.com' }));
    await waitFor(() => expect(fieldValue('Name')).toBe('Ada Lovelace'));
    expect(fieldValue('Email')).toBe('ada@example.com');
    type('Subject', 'Plans');
    type('Message', 'Is there a yearly plan?');

    fireEvent.click(screen.getByRole('button', { name: 'Send' }));

    expect(await screen.findByText('Thank you. We have your message and will answer by email.')).toBeTruthy();
    expect(fieldValue('Message')).toBe('');
    expect(fieldValue('Subject')).toBe('Plans');
    expect(callsTo(fetchMock, CONTACT).map((body) => JSON.parse(String(body)))).toEqual([
      { name: 'Ada Lovelace', email: 'ada@example.com', subject: 'Plans', message: 'Is there a yearly plan?' },
    ]);
  });

  it('shows the server’s field messages and rate limits on the form', async () => {
    let answer = jsonResponse({ message: 'Invalid.', errors: { email: ['This address does not accept mail.'] } }, 422);
    stubApi({ [CONTACT]: () => answer });
    renderPage();
    type('Subject', 'Plans');
    type('Message', 'Is there a yearly plan?');
    await waitFor(() => expect(fieldValue('Email')).toBe('ada@example.com'));

    fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect(await screen.findByText('This address does not accept mail.')).toBeTruthy();

    answer = jsonResponse({ status: false, message: 'Too many messages. Try again in an hour.' }, 429);
    fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect(await screen.findByText('Too many messages. Try again in an hour.')).toBeTruthy();
  });
});

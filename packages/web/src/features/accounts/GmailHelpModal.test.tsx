import { fireEvent, screen, within } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildProviders } from '../../test/accounts';
import { callsTo, stubApi } from '../../test/api';
import { renderWithApp } from '../../test/render';
import { AccountsPage } from './AccountsPage';
import { GmailHelpModal } from './GmailHelpModal';

const Harness = () => {
  const [opened, setOpened] = useState(true);
  return (
    <>
      <button type="button" onClick={() => setOpened(true)}>
        Open help
      </button>
      <GmailHelpModal opened={opened} onClose={() => setOpened(false)} />
    </>
  );
};

const step = () => screen.getByTestId('gmail-help-step').textContent;
const button = (name: string) => screen.getByRole('button', { name }) as HTMLButtonElement;

describe('GmailHelpModal', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('walks five steps: Prev is off on the first, Finish on the last closes and starts over', () => {
    renderWithApp(<Harness />);
    expect(screen.getByRole('dialog').textContent).toContain('Gmail Services');
    expect(step()).toBe('Step 1 of 5');
    expect(button('Prev').disabled).toBe(true);

    fireEvent.click(button('Next'));
    expect(step()).toBe('Step 2 of 5');
    expect(screen.getByText('Open App passwords')).toBeTruthy();
    expect(button('Prev').disabled).toBe(false);
    fireEvent.click(button('Prev'));
    expect(step()).toBe('Step 1 of 5');

    for (let index = 0; index < 4; index += 1) fireEvent.click(button('Next'));
    expect(step()).toBe('Step 5 of 5');
    expect(screen.queryByRole('button', { name: 'Next' })).toBeNull();
    fireEvent.click(button('Finish'));
    expect(screen.queryByRole('dialog')).toBeNull();

    fireEvent.click(button('Open help'));
    expect(step()).toBe('Step 1 of 5');
  });

  it('opens from the Google form, which tests through Gmail’s server', async () => {
    const fetchMock = stubApi({
      'GET /api/settings/accounts': { data: [] },
      'GET /api/settings/account/get-providers': buildProviders({ providers: ['mailgun', 'smtp', 'google'] }),
      'POST /api/settings/account/send-test-smtp': { status: true, result: true, message: 'Sent.' },
    });
    renderWithApp(<AccountsPage />);
    const add = await screen.findByTestId('add-account');
    await vi.waitFor(() => expect((add as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(add);
    const form = await screen.findByTestId('account-form');
    fireEvent.click(within(form).getByRole('radio', { name: 'Google' }));

    fireEvent.click(within(form).getByRole('button', { name: 'How do I get an app password?' }));
    const help = screen.getByRole('dialog');
    expect(help.textContent).toContain('Gmail Services');
    fireEvent.click(within(help).getByRole('button', { name: 'Close' }));

    fireEvent.change(within(form).getByLabelText('Gmail address'), { target: { value: 'ada@gmail.com' } });
    fireEvent.change(within(form).getByLabelText('App password'), { target: { value: 'abcd efgh ijkl mnop' } });
    fireEvent.click(within(form).getByTestId('smtp-test'));
    await within(form).findByText('Sent.');
    expect(
      callsTo(fetchMock, 'POST /api/settings/account/send-test-smtp').map((body) => JSON.parse(String(body))),
    ).toEqual([
      expect.objectContaining({
        driver: 'gmail',
        host: 'smtp.gmail.com',
        port: 465,
        encryption: 'ssl',
        username: 'ada@gmail.com',
      }),
    ]);
  });
});

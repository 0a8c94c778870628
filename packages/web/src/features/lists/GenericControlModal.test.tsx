import { genericUnsubscribedMessage, LIST_MESSAGES } from '@sendwell/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { callsTo, stubApi } from '../../test/api';
import { buildList } from '../../test/lists';
import { renderWithApp } from '../../test/render';
import { GenericControlModal } from './GenericControlModal';

const CONTROL = 'GET /api/mailing-lists/get-emails-for-generic-control/5';
const CLEAR = 'POST /api/mailing-lists/clear-generic-emails';

const genericEmails = (count: number) => Array.from({ length: count }, (_, index) => `info@shop${index + 1}.example`);

describe('GenericControlModal', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('lists the first 15 generic addresses and says how many more', async () => {
    stubApi({
      [CONTROL]: { status: true, emails: genericEmails(20), total: 20, message: LIST_MESSAGES.genericWarning },
    });
    renderWithApp(<GenericControlModal list={buildList()} onClose={vi.fn()} />);

    const emails = await screen.findByTestId('generic-emails');
    expect(within(emails).getAllByRole('listitem')).toHaveLength(15);
    expect(within(emails).getByText('info@shop15.example')).toBeTruthy();
    expect(screen.queryByText('info@shop16.example')).toBeNull();
    expect(screen.getByText('...and 5 more')).toBeTruthy();
    expect(screen.getByText(LIST_MESSAGES.genericWarning)).toBeTruthy();
  });

  it('unsubscribes the addresses only once the checkbox is ticked, then says so in a Success! dialog', async () => {
    const onClose = vi.fn();
    const fetchMock = stubApi({
      [CONTROL]: { status: true, emails: genericEmails(2), total: 2, message: LIST_MESSAGES.genericWarning },
      [CLEAR]: { status: true, message: genericUnsubscribedMessage(2) },
    });
    renderWithApp(<GenericControlModal list={buildList()} onClose={onClose} />);

    const remove = (await screen.findByRole('button', { name: 'Unsubscribe them' })) as HTMLButtonElement;
    expect(remove.disabled).toBe(true);
    expect(screen.queryByText(/more$/)).toBeNull();

    fireEvent.click(screen.getByLabelText('I want to unsubscribe these addresses'));
    expect(remove.disabled).toBe(false);
    fireEvent.click(remove);

    const success = await screen.findByRole('dialog', { name: 'Success!' });
    expect(success.textContent).toContain(genericUnsubscribedMessage(2));
    expect(callsTo(fetchMock, CLEAR).map((body) => JSON.parse(String(body)))).toEqual([{ listId: 5 }]);
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    fireEvent.click(within(success).getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Success!' })).toBeNull());
  });

  it('says so when the list has no generic addresses', async () => {
    stubApi({ [CONTROL]: { status: true, emails: [], total: 0, message: LIST_MESSAGES.noGeneric } });
    renderWithApp(<GenericControlModal list={buildList()} onClose={vi.fn()} />);

    expect(await screen.findByText('Excellent! There are no generic emails in your mailing list.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Unsubscribe them' })).toBeNull();
  });
});

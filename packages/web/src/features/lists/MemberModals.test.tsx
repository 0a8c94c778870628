import { LIST_MESSAGES } from '@sendwell/contracts';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { callsTo, stubApi } from '../../test/api';
import { buildList, buildMember } from '../../test/lists';
import { jsonResponse, renderWithApp } from '../../test/render';
import { AddMemberModal, EditMemberModal } from './MemberModals';

const MEMBER_INFO = 'GET /api/mailing-lists/get-member-info/3';
const UPDATE = 'POST /api/mailing-lists/update/member/3';
const ADD = 'POST /api/mailing-lists/add-member';

const bodiesOf = (fetchMock: ReturnType<typeof stubApi>, key: string) =>
  callsTo(fetchMock, key).map((body) => JSON.parse(String(body)));

describe('EditMemberModal', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('shows the email read-only and saves the name and subscription', async () => {
    const member = buildMember();
    const onClose = vi.fn();
    const fetchMock = stubApi({
      [MEMBER_INFO]: { status: true, message: '', data: member },
      [UPDATE]: { status: true, message: LIST_MESSAGES.memberSaved },
    });
    renderWithApp(<EditMemberModal member={member} onClose={onClose} />);

    const email = (await screen.findByLabelText('Email')) as HTMLInputElement;
    expect(email.value).toBe('ada@example.com');
    expect(email.readOnly).toBe(true);

    fireEvent.change(screen.getByLabelText('Name'), { target: { value: 'Ada King' } });
    fireEvent.click(screen.getByRole('switch', { name: 'Subscribed' }));
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));

    expect(await screen.findByText(LIST_MESSAGES.memberSaved)).toBeTruthy();
    expect(bodiesOf(fetchMock, UPDATE)).toEqual([
      { account_id: 1, email: 'ada@example.com', fullname: 'Ada King', subscribe: 0 },
    ]);
    await waitFor(() => expect(onClose).toHaveBeenCalled());
  });
});

describe('AddMemberModal', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('checks the address before sending it', async () => {
    const fetchMock = stubApi({});
    renderWithApp(<AddMemberModal list={buildList()} opened onClose={vi.fn()} />);

    fireEvent.change(await screen.findByLabelText(/Email/), { target: { value: 'not an address' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add Member' }));

    expect(await screen.findByText(LIST_MESSAGES.emailInvalid)).toBeTruthy();
    expect(callsTo(fetchMock, ADD)).toHaveLength(0);
  });

  it('says when the address is already on the list', async () => {
    const fetchMock = stubApi({
      [ADD]: () => jsonResponse({ status: false, message: LIST_MESSAGES.memberExists }, 409),
    });
    renderWithApp(<AddMemberModal list={buildList()} opened onClose={vi.fn()} />);

    fireEvent.change(await screen.findByLabelText(/Email/), { target: { value: ' grace@example.com ' } });
    fireEvent.change(screen.getByLabelText('Name'), { target: { value: 'Grace' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add Member' }));

    expect(await screen.findByText(LIST_MESSAGES.memberExists)).toBeTruthy();
    expect(bodiesOf(fetchMock, ADD)).toEqual([
      { listId: 5, email: 'grace@example.com', fullname: 'Grace', subscribe: 1 },
    ]);
  });
});

import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderWithApp } from '../test/render';
import { ApiError } from './api';
import { showError } from './errors';

describe('showError', () => {
  it('shows the first message of each field of a 422 as its own toast', async () => {
    renderWithApp(null);
    act(() =>
      showError(
        new ApiError(422, {
          message: 'The given data was invalid.',
          errors: {
            email: ['The email has already been taken.', 'The email is too long.'],
            name: ['The name field is required.'],
          },
        }),
      ),
    );

    expect(await screen.findByText('The email has already been taken.')).toBeTruthy();
    expect(screen.getByText('The name field is required.')).toBeTruthy();
    expect(screen.queryByText('The email is too long.')).toBeNull();
    expect(screen.queryByText('Error!')).toBeNull();
  });

  it('opens an Error! dialog with the server message for other HTTP errors', async () => {
    renderWithApp(null);
    act(() => showError(new ApiError(500, { status: false, message: 'Something broke on our side.' })));

    const dialog = await screen.findByRole('dialog');
    expect(dialog.textContent).toContain('Error!');
    expect(dialog.textContent).toContain('Something broke on our side.');

    fireEvent.click(screen.getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('shows a refused action (status false) as a notice titled Error', async () => {
    renderWithApp(null);
    act(() => showError(new ApiError(200, { status: false, message: 'Not enough credits.' })));

    expect(await screen.findByText('Not enough credits.')).toBeTruthy();
    expect(screen.getByText('Error')).toBeTruthy();
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('shows a network failure as a toast with its text', async () => {
    renderWithApp(null);
    act(() => showError(new TypeError('Failed to fetch')));

    expect(await screen.findByText('Failed to fetch')).toBeTruthy();
  });

  it("shows an out-of-credit ERR_LIMIT as the server's warning dialog, and confirm goes to its url", async () => {
    const assign = vi.fn();
    vi.stubGlobal('location', { ...window.location, assign });
    try {
      renderWithApp(null);
      const errorData = {
        title: 'Not enough credits',
        message: 'This needs 200 credits; you have 100. To complete this process; please buy credits.',
        confirmButtonText: 'Buy Credits',
        cancelButtonText: 'Cancel',
        confirmButtonColor: 'blue',
        cancelButtonColor: 'gray',
        link: null,
        url: '/settings/subscription',
      };
      const error = () =>
        new ApiError(402, {
          status: false,
          message: 'To complete this process; please buy credits.',
          code: 'ERR_LIMIT',
          errorData,
        });
      act(() => showError(error()));

      const dialog = await screen.findByRole('dialog', { name: 'Not enough credits' });
      expect(dialog.textContent).toContain(errorData.message);
      expect(dialog.textContent).not.toContain('Error!');
      fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
      await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
      expect(assign).not.toHaveBeenCalled();

      act(() => showError(error()));
      fireEvent.click(await screen.findByRole('button', { name: 'Buy Credits' }));
      await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
      expect(assign).toHaveBeenCalledWith('/settings/subscription');
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('falls back to the Error! dialog for an ERR_LIMIT without its dialog', async () => {
    renderWithApp(null);
    act(() => showError(new ApiError(402, { status: false, message: 'Out of credit.', code: 'ERR_LIMIT' })));
    const dialog = await screen.findByRole('dialog');
    expect(dialog.textContent).toContain('Error!');
  });
});

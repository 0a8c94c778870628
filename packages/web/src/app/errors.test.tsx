import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
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
});

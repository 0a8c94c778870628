import { REGISTRATION_MESSAGES, runtimeTimeZone, timeZoneLabel } from '@sendwell/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '../../app/queryClient';
import { USER_QUERY_KEY } from '../../app/session';
import { callsTo, stubApi } from '../../test/api';
import { PLANS } from '../../test/billing';
import { jsonResponse, renderWithApp } from '../../test/render';
import { buildUser } from '../../test/user';
import { RegisterPage } from './RegisterPage';

// The real widget solves proof of work in workers; these tests play its events instead.
vi.mock('altcha', () => ({}));
const resetWidget = vi.fn();

// Stripe.js comes from Stripe's servers; a stand-in card field reports a complete card on click.
const stripe = vi.hoisted(() => ({ createToken: vi.fn() }));
vi.mock('@stripe/stripe-js/pure', () => ({ loadStripe: async () => stripe }));
vi.mock('@stripe/react-stripe-js', () => ({
  Elements: ({ children }: { children: ReactNode }) => children,
  useStripe: () => stripe,
  useElements: () => ({ getElement: () => ({ clear: () => undefined }) }),
  CardElement: ({ onChange }: { onChange: (event: { complete: boolean }) => void }) => (
    <button type="button" onClick={() => onChange({ complete: true })}>
      Type a test card
    </button>
  ),
}));

beforeAll(() => {
  customElements.define(
    'altcha-widget',
    class extends HTMLElement {
      reset = resetWidget;
    },
  );
});

const REGISTER = 'POST /api/register-with-subscribe';

const stubRegistration = (register?: () => Response, stripePublishableKey: string | null = null) =>
  stubApi({
    'GET /api/packages': { data: PLANS },
    'GET /api/billing/options': { stripePublishableKey, creditPacks: [] },
    'GET /api/user-information': { data: buildUser({ name: 'Nora Newcomer' }) },
    ...(register ? { [REGISTER]: register } : {}),
  });

const renderPage = () => {
  const queryClient = createQueryClient();
  queryClient.setQueryData(USER_QUERY_KEY, null);
  renderWithApp(<RegisterPage />, queryClient);
  return queryClient;
};

const type = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });

const fillDetails = () => {
  type('Full Name', 'Nora Newcomer');
  type('Email', 'nora@example.com');
  type('Password', 'secret123');
  fireEvent.click(screen.getByLabelText('I accept the terms of service'));
};

const solveCaptcha = () => {
  const widget = screen.getByTestId('captcha').querySelector('altcha-widget');
  act(() => {
    widget?.dispatchEvent(
      new CustomEvent('statechange', { detail: { state: 'verified', payload: 'solved-proof-of-work' } }),
    );
  });
};

const goToDetails = async () => {
  await screen.findByTestId('register-plan-2');
  fireEvent.click(screen.getByRole('button', { name: 'Next' }));
  await screen.findByLabelText('Full Name');
};

describe('RegisterPage', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    resetWidget.mockClear();
    stripe.createToken.mockReset();
  });

  it('offers the plans with the default free plan chosen, and paid plans closed while Stripe is not configured', async () => {
    stubRegistration();
    renderPage();

    const free = await screen.findByTestId('register-plan-2');
    expect(within(free).getByText('$0 / month', { selector: 'p' })).toBeTruthy();
    expect((within(free).getByRole('radio', { name: 'Free' }) as HTMLInputElement).checked).toBe(true);

    const pro = screen.getByTestId('register-plan-3');
    expect(pro.textContent).toContain('$19 / month');
    expect(pro.textContent).toContain('5,000 credits a month');
    expect(pro.textContent).toContain('Paid plans are not available on this server yet.');
    expect((within(pro).getByRole('radio', { name: 'Pro' }) as HTMLInputElement).disabled).toBe(true);
    expect((within(pro).getByRole('button', { name: 'Get Started' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('lets a paid plan be chosen once the server has a Stripe key', async () => {
    stubRegistration(undefined, 'pk_test_123');
    renderPage();

    const pro = await screen.findByTestId('register-plan-3');
    expect(pro.textContent).not.toContain('Paid plans are not available');
    const radio = within(pro).getByRole('radio', { name: 'Pro' }) as HTMLInputElement;
    expect(radio.disabled).toBe(false);
    fireEvent.click(radio);
    expect(radio.checked).toBe(true);
  });

  it('goes back to the plans from the form and keeps what was typed', async () => {
    stubRegistration();
    renderPage();
    await goToDetails();
    expect(screen.getByTestId('register-chosen-plan').textContent).toContain('Free');
    type('Full Name', 'Nora Newcomer');
    type('Email', 'nora@example.com');

    fireEvent.click(screen.getByRole('button', { name: 'Back' }));
    expect(await screen.findByTestId('register-plan-2')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Next' }));

    expect((await screen.findByLabelText<HTMLInputElement>('Full Name')).value).toBe('Nora Newcomer');
    expect(screen.getByLabelText<HTMLInputElement>('Email').value).toBe('nora@example.com');
  });

  it('asks for the captcha before sending anything', async () => {
    const fetchMock = stubRegistration(() => jsonResponse({}));
    renderPage();
    await goToDetails();
    fillDetails();

    fireEvent.click(screen.getByTestId('register-submit'));

    expect(await screen.findByText(REGISTRATION_MESSAGES.captcha)).toBeTruthy();
    // Only the captcha is missing: no form-wide complaint about the fields.
    expect(screen.queryByText(REGISTRATION_MESSAGES.form)).toBeNull();
    expect(callsTo(fetchMock, REGISTER)).toHaveLength(0);
  });

  it('checks the fields and the terms on this side first, in the spec’s words', async () => {
    const fetchMock = stubRegistration(() => jsonResponse({}));
    renderPage();
    await goToDetails();
    type('Email', 'not-an-email');
    type('Password', '  abc  ');
    solveCaptcha();

    fireEvent.click(screen.getByTestId('register-submit'));

    expect(await screen.findByText(REGISTRATION_MESSAGES.form)).toBeTruthy();
    expect(screen.getByText('The full name field is required.')).toBeTruthy();
    expect(screen.getByText('Please enter a valid email address.')).toBeTruthy();
    expect(screen.getByText('The password must be at least 6 characters.')).toBeTruthy();
    expect(screen.getByText('Please accept the terms of service.')).toBeTruthy();
    expect(screen.queryByText(REGISTRATION_MESSAGES.captcha)).toBeNull();
    expect(callsTo(fetchMock, REGISTER)).toHaveLength(0);
  });

  it('shows the server’s field messages and resets the captcha when registration is refused', async () => {
    const fetchMock = stubRegistration(() =>
      jsonResponse(
        { message: 'The given data was invalid.', errors: { email: ['The email has already been taken.'] } },
        422,
      ),
    );
    renderPage();
    await goToDetails();
    fillDetails();
    solveCaptcha();
    expect(screen.getByTestId('captcha').getAttribute('data-state')).toBe('verified');

    fireEvent.click(screen.getByTestId('register-submit'));

    expect(await screen.findByText('The email has already been taken.')).toBeTruthy();
    expect(screen.getByText(REGISTRATION_MESSAGES.form)).toBeTruthy();
    expect(resetWidget).toHaveBeenCalledTimes(1);
    expect(screen.getByTestId('captcha').getAttribute('data-state')).toBe('unverified');

    // The used solution is gone: submitting again asks for a new one instead of sending the old.
    fireEvent.click(screen.getByTestId('register-submit'));
    expect(await screen.findByText(REGISTRATION_MESSAGES.captcha)).toBeTruthy();
    expect(callsTo(fetchMock, REGISTER)).toHaveLength(1);
  });

  it('shows a rate limit on the form and resets the captcha', async () => {
    stubRegistration(() => jsonResponse({ status: false, message: 'Too many attempts. Try again later.' }, 429));
    renderPage();
    await goToDetails();
    fillDetails();
    solveCaptcha();

    fireEvent.click(screen.getByTestId('register-submit'));

    expect(await screen.findByText('Too many attempts. Try again later.')).toBeTruthy();
    expect(resetWidget).toHaveBeenCalledTimes(1);
  });

  it('sends the spec’s fields as a form and signs the new user in', async () => {
    const fetchMock = stubRegistration(() =>
      jsonResponse({ status: true, message: 'Welcome!', route: '/', stripe_id: null, user_id: 9 }),
    );
    const queryClient = renderPage();
    await goToDetails();
    fillDetails();
    type('Referred by', 'friend@example.com');
    // The browser's zone is offered; the person picks another (issue 29 item 3).
    const zone = screen.getByLabelText('Time zone') as HTMLInputElement;
    expect(zone.value).toBe(timeZoneLabel(runtimeTimeZone()));
    // Typed, as a person does: into the focused field.
    zone.focus();
    fireEvent.change(zone, { target: { value: 'Berlin' } });
    fireEvent.click(await screen.findByRole('option', { name: /^Europe\/Berlin/ }));
    solveCaptcha();

    fireEvent.click(screen.getByTestId('register-submit'));

    await waitFor(() => expect(queryClient.getQueryData(USER_QUERY_KEY)).toMatchObject({ name: 'Nora Newcomer' }));
    const [body] = callsTo(fetchMock, REGISTER);
    expect(body).toBeInstanceOf(FormData);
    expect(Object.fromEntries((body as FormData).entries())).toEqual({
      name: 'Nora Newcomer',
      email: 'nora@example.com',
      password: 'secret123',
      referred_by: 'friend@example.com',
      package_id: '2',
      stripeToken: '',
      altcha: 'solved-proof-of-work',
      time_zone: 'Europe/Berlin',
    });
    expect(resetWidget).not.toHaveBeenCalled();
  });

  it('asks a paid plan for a complete card and sends the token Stripe made of it', async () => {
    stripe.createToken.mockResolvedValue({ token: { id: 'tok_visa' } });
    const fetchMock = stubRegistration(
      () => jsonResponse({ status: true, message: 'Welcome!', route: '/', stripe_id: 'cus_1', user_id: 9 }),
      'pk_test_123',
    );
    renderPage();
    const pro = await screen.findByTestId('register-plan-3');
    fireEvent.click(within(pro).getByRole('button', { name: 'Get Started' }));
    await screen.findByLabelText('Full Name');
    fillDetails();
    solveCaptcha();

    fireEvent.click(screen.getByTestId('register-submit'));
    expect(await screen.findByText(REGISTRATION_MESSAGES.card)).toBeTruthy();
    expect(callsTo(fetchMock, REGISTER)).toHaveLength(0);

    fireEvent.click(screen.getByRole('button', { name: 'Type a test card' }));
    expect(screen.queryByText(REGISTRATION_MESSAGES.card)).toBeNull();
    fireEvent.click(screen.getByTestId('register-submit'));

    await waitFor(() => expect(callsTo(fetchMock, REGISTER)).toHaveLength(1));
    const form = callsTo(fetchMock, REGISTER)[0] as FormData;
    expect(form.get('package_id')).toBe('3');
    expect(form.get('stripeToken')).toBe('tok_visa');
  });

  it('shows a declined card under the card field and resets the captcha', async () => {
    stripe.createToken.mockResolvedValue({ token: { id: 'tok_chargeDeclined' } });
    stubRegistration(
      () => jsonResponse({ status: false, message: 'Your card was declined.', code: 'CARD_DECLINED' }, 402),
      'pk_test_123',
    );
    renderPage();
    fireEvent.click(await screen.findByRole('radio', { name: 'Pro' }));
    fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    await screen.findByLabelText('Full Name');
    fillDetails();
    fireEvent.click(screen.getByRole('button', { name: 'Type a test card' }));
    solveCaptcha();

    fireEvent.click(screen.getByTestId('register-submit'));

    const message = await screen.findByText('Your card was declined.');
    expect(screen.getByTestId('card-field').contains(message)).toBe(true);
    expect(resetWidget).toHaveBeenCalledTimes(1);
  });
});

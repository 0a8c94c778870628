import { act, renderHook } from '@testing-library/react';
import type { ChangeEvent, FormEvent } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { ApiError } from './api';
import { useZodForm } from './useZodForm';

vi.mock('./errors', async (importOriginal) => ({
  ...(await importOriginal<typeof import('./errors')>()),
  showError: vi.fn(),
}));
const { showError } = await import('./errors');

const ZSignIn = z.object({
  email: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.email({ message: 'Please enter a valid email address.' })),
  password: z.string().min(1, { message: 'The password field is required.' }),
});

const typeInto = (onChange: (event: ChangeEvent<HTMLInputElement>) => void, value: string) =>
  onChange({ currentTarget: { value } } as ChangeEvent<HTMLInputElement>);

const submitEvent = () => ({ preventDefault: vi.fn() }) as unknown as FormEvent<HTMLFormElement>;

const setUp = (options: Partial<Parameters<typeof useZodForm<typeof ZSignIn>>[1]> = {}) => {
  const onSubmit = vi.fn();
  const hook = renderHook(() =>
    useZodForm(ZSignIn, { initialValues: { email: '', password: '' }, onSubmit, ...options }),
  );
  return { hook, onSubmit };
};

describe('useZodForm', () => {
  afterEach(() => vi.mocked(showError).mockClear());

  it('gives each input its value, its error and a change handler', () => {
    const { hook } = setUp();
    act(() => typeInto(hook.result.current.inputProps('email').onChange, 'Ada@Example.com'));
    expect(hook.result.current.inputProps('email')).toMatchObject({ value: 'Ada@Example.com', error: undefined });
    expect(hook.result.current.values).toEqual({ email: 'Ada@Example.com', password: '' });
  });

  it('shows the first message of each field and does not submit while the values fail the schema', () => {
    const { hook, onSubmit } = setUp();
    const event = submitEvent();
    act(() => hook.result.current.onSubmit(event));
    expect(event.preventDefault).toHaveBeenCalled();
    expect(onSubmit).not.toHaveBeenCalled();
    expect(hook.result.current.errors).toEqual({
      email: 'Please enter a valid email address.',
      password: 'The password field is required.',
    });
  });

  it('submits the parsed request and the values as typed, clearing earlier messages', () => {
    const { hook, onSubmit } = setUp();
    act(() => hook.result.current.onSubmit());
    act(() => {
      typeInto(hook.result.current.inputProps('email').onChange, ' Ada@Example.com ');
      typeInto(hook.result.current.inputProps('password').onChange, 'secret');
    });
    act(() => hook.result.current.onSubmit());
    expect(onSubmit).toHaveBeenCalledWith(
      { email: 'ada@example.com', password: 'secret' },
      expect.objectContaining({ values: { email: ' Ada@Example.com ', password: 'secret' } }),
    );
    expect(hook.result.current.errors).toEqual({});
  });

  it('adds the page’s own checks to the schema’s and tells the page when the form is refused', () => {
    const onInvalid = vi.fn();
    const { hook, onSubmit } = setUp({
      initialValues: { email: 'ada@example.com', password: 'x' },
      validate: (_values, errors) => ({ terms: 'Please accept the terms of service.', ...errors }),
      onInvalid,
    });
    act(() => hook.result.current.onSubmit());
    expect(onSubmit).not.toHaveBeenCalled();
    expect(hook.result.current.errors).toEqual({ terms: 'Please accept the terms of service.' });
    expect(onInvalid).toHaveBeenCalledWith({ terms: 'Please accept the terms of service.' });
  });

  it('puts a 422’s field errors beside their fields, and its message on the form when it names none', () => {
    const { hook } = setUp();
    act(() =>
      hook.result.current.fail(
        new ApiError(422, { message: 'Invalid.', errors: { email: ['Taken.', 'Other.'], token: ['Expired.'] } }),
      ),
    );
    expect(hook.result.current.errors).toEqual({ email: 'Taken.', token: 'Expired.' });
    expect(hook.result.current.formError).toBeNull();

    act(() => hook.result.current.fail(new ApiError(422, { message: 'The form could not be read.', errors: {} })));
    expect(hook.result.current.errors).toEqual({});
    expect(hook.result.current.formError).toBe('The form could not be read.');
    expect(showError).not.toHaveBeenCalled();
  });

  it('keeps a refusal status’s message on the form and reports anything else through the error catalogue', () => {
    const { hook } = setUp({ refusalStatuses: [401, 429] });
    act(() => hook.result.current.fail(new ApiError(401, { status: false, message: 'Wrong email or password.' })));
    expect(hook.result.current.formError).toBe('Wrong email or password.');

    // Submitting again starts without the old refusal.
    act(() => hook.result.current.onSubmit());
    expect(hook.result.current.formError).toBeNull();

    const serverError = new ApiError(500, { status: false, message: 'Something went wrong.' });
    act(() => hook.result.current.fail(serverError));
    expect(showError).toHaveBeenCalledWith(serverError);
    expect(hook.result.current.formError).toBeNull();
  });

  describe('a form whose values hold a list', () => {
    const ZTeam = z.object({
      name: z.string().min(1, { message: 'Name the team.' }),
      people: z.array(z.object({ key: z.string(), email: z.email({ message: 'Not an address.' }) })),
    });
    type TTeam = z.input<typeof ZTeam>;
    /** A message stays while the field it is about is unchanged, following its person by key. */
    const holdErrors = (errors: Record<string, string>, checked: TTeam, now: TTeam) =>
      Object.fromEntries(
        Object.entries(errors).flatMap(([path, message]) => {
          const [root, position, field] = path.split('.');
          if (root !== 'people') return checked.name === now.name ? [[path, message]] : [];
          const before = checked.people[Number(position)];
          const index = now.people.findIndex((person) => person.key === before?.key);
          const after = now.people[index];
          return after && before && after[field as 'email'] === before[field as 'email']
            ? [[`people.${index}.${field}`, message]]
            : [];
        }),
      );
    const setUpTeam = () => {
      const onSubmit = vi.fn();
      const hook = renderHook(() =>
        useZodForm(ZTeam, {
          initialValues: {
            name: '',
            people: [
              { key: 'a', email: 'ann@example.com' },
              { key: 'b', email: 'bob' },
            ],
          },
          isNested: true,
          holdErrors,
          serverField: (field) => field.replace(/^members\./, 'people.'),
          onSubmit,
        }),
      );
      return { hook, onSubmit };
    };

    it('keys each message by its whole path, as the server does', () => {
      const { hook, onSubmit } = setUpTeam();
      act(() => hook.result.current.onSubmit());
      expect(onSubmit).not.toHaveBeenCalled();
      expect(hook.result.current.errors).toEqual({ name: 'Name the team.', 'people.1.email': 'Not an address.' });
    });

    it('drops a message once its field changes, and moves it with its item when one before it goes', () => {
      const { hook } = setUpTeam();
      act(() => hook.result.current.onSubmit());
      act(() => hook.result.current.setValues((team) => ({ ...team, people: team.people.slice(1) })));
      expect(hook.result.current.errors).toEqual({ name: 'Name the team.', 'people.0.email': 'Not an address.' });
      act(() => hook.result.current.setValue('name', 'Sales'));
      expect(hook.result.current.errors).toEqual({ 'people.0.email': 'Not an address.' });
      act(() =>
        hook.result.current.setValues((team) => ({ ...team, people: [{ key: 'b', email: 'bob@example.com' }] })),
      );
      expect(hook.result.current.errors).toEqual({});
    });

    it('puts a 422 about the request’s own field names on the form’s', () => {
      const { hook } = setUpTeam();
      act(() =>
        hook.result.current.fail(
          new ApiError(422, { message: 'Invalid.', errors: { 'members.0.email': ['Suppressed address.'] } }),
        ),
      );
      expect(hook.result.current.errors).toEqual({ 'people.0.email': 'Suppressed address.' });
    });
  });
});

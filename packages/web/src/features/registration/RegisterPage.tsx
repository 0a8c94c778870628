import { Alert, Anchor, Button, Checkbox, Group, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { DEFAULT_FREE_PLAN_ID, REGISTRATION_MESSAGES, runtimeTimeZone, ZRegisterRequest } from '@sendwell/contracts';
import { useCallback, useEffect, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiError } from '../../app/api';
import { fieldErrors } from '../../app/errors';
import { type TFormErrors, useZodForm } from '../../app/useZodForm';
import { FormStack } from '../../components/FormStack';
import { Loading, QueryStatus } from '../../components/QueryStatus';
import { TimeZoneSelect } from '../../components/TimeZoneSelect';
import { EmailField, RequiredPasswordField, RequiredTextInput } from '../auth/AuthFields';
import { AuthLayout } from '../auth/AuthLayout';
import { formatPlanPrice } from '../billing/billing.format';
import { type TPlan, useBillingOptions, usePlans } from '../billing/billing.queries';
import { CardField } from '../billing/CardField';
import { PlanCard } from '../billing/PlanCard';
import { useCardToken } from '../billing/useCardToken';
import { Captcha, type TCaptchaHandle } from './Captcha';
import { type TRegistrationForm, useRegister } from './registration.queries';

type TStep = 'plan' | 'details';

const TERMS_REQUIRED = 'Please accept the terms of service.';

/** The fields a person types; a problem with any of them also earns the form-wide message. */
const TYPED_FIELDS = ['name', 'email', 'password', 'referred_by'] as const;
const hasTypedFieldError = (errors: TFormErrors): boolean => TYPED_FIELDS.some((field) => field in errors);

/** What the person types is checked by the request's own rules; the rest by the page. */
const ZTypedFields = ZRegisterRequest.pick({ name: true, email: true, password: true, referred_by: true });

const withoutError = (errors: TFormErrors, field: string): TFormErrors => {
  if (!(field in errors)) return errors;
  const rest = { ...errors };
  delete rest[field];
  return rest;
};

/** Only paths inside this app, whatever the answer says. */
const appPath = (route: string): string => (route.startsWith('/') && !route.startsWith('//') ? route : '/');

/** Sign-up in two steps: choose a plan, then the account details (and a card for a paid plan). */
export const RegisterPage = () => {
  const plans = usePlans();
  const options = useBillingOptions();
  const register = useRegister();
  const navigate = useNavigate();
  const nameRef = useRef<HTMLInputElement>(null);
  const captchaRef = useRef<TCaptchaHandle>(null);
  const { cardRef, isCardComplete, setIsCardComplete, createToken, isTokenPending } = useCardToken();

  const [step, setStep] = useState<TStep>('plan');
  const [planId, setPlanId] = useState<number | null>(DEFAULT_FREE_PLAN_ID);
  const [isTermsAccepted, setIsTermsAccepted] = useState(false);
  const [captchaPayload, setCaptchaPayload] = useState<string | null>(null);
  // The browser's zone, offered (issue 29): every time in the app is shown in the user's zone.
  const [timeZone, setTimeZone] = useState(runtimeTimeZone);

  // Without a publishable key the server cannot take a card, so only free plans can be chosen.
  const publishableKey = options.data?.stripePublishableKey ?? null;
  const isAvailable = (plan: TPlan) => plan.isFree || publishableKey !== null;
  const chosenPlan = plans.data?.find((plan) => plan.id === planId && isAvailable(plan)) ?? null;
  const isPaid = chosenPlan !== null && !chosenPlan.isFree;

  const reportFailure = (error: Error, failForm: (error: unknown) => void) => {
    // The server has seen this captcha solution; it will not take it twice.
    captchaRef.current?.reset();
    if (error instanceof ApiError && error.status === 402) {
      setErrors({ stripeToken: error.message });
      return;
    }
    failForm(error);
    if (error instanceof ApiError && error.status === 422 && hasTypedFieldError(fieldErrors(error))) {
      setAlert(REGISTRATION_MESSAGES.form);
    }
  };

  const form = useZodForm(ZTypedFields, {
    initialValues: { name: '', email: '', password: '', referred_by: '' },
    validate: () => {
      const issues: TFormErrors = {};
      if (!chosenPlan) issues.package_id = REGISTRATION_MESSAGES.package;
      if (isPaid && !isCardComplete) issues.stripeToken = REGISTRATION_MESSAGES.card;
      if (!isTermsAccepted) issues.terms = TERMS_REQUIRED;
      if (!captchaPayload) issues.altcha = REGISTRATION_MESSAGES.captcha;
      return issues;
    },
    onInvalid: (issues) => {
      if (hasTypedFieldError(issues)) setAlert(REGISTRATION_MESSAGES.form);
    },
    refusalStatuses: [429],
    onSubmit: async (_request, { values, fail: failForm }) => {
      // The fields go as typed, as a form sends them; the server parses them by the same rules.
      const fields: TRegistrationForm = {
        name: values.name,
        email: values.email,
        password: values.password,
        referred_by: values.referred_by ?? '',
        package_id: chosenPlan ? String(chosenPlan.id) : '',
        stripeToken: '',
        altcha: captchaPayload ?? '',
        time_zone: timeZone,
      };
      let stripeToken = '';
      if (isPaid) {
        const card = await createToken();
        if ('error' in card) {
          setErrors({ stripeToken: card.error });
          return;
        }
        stripeToken = card.token;
      }
      register.mutate(
        { ...fields, stripeToken },
        {
          onSuccess: ({ route }) => navigate(appPath(route), { replace: true }),
          onError: (error) => reportFailure(error, failForm),
        },
      );
    },
  });
  const { errors, setErrors, formError: alert, setFormError: setAlert } = form;

  useEffect(() => {
    if (step === 'details') nameRef.current?.focus();
  }, [step]);

  const changeCaptcha = useCallback(
    (payload: string | null) => {
      setCaptchaPayload(payload);
      if (payload) setErrors((current) => withoutError(current, 'altcha'));
    },
    [setErrors],
  );

  const goToDetails = (plan: TPlan | null) => {
    if (!plan) {
      setErrors({ package_id: REGISTRATION_MESSAGES.package });
      return;
    }
    setErrors((current) => withoutError(current, 'package_id'));
    setAlert(null);
    setStep('details');
  };

  const goBack = () => {
    // The card field leaves with this step; what was typed into it goes too.
    setIsCardComplete(false);
    setAlert(null);
    setStep('plan');
  };

  const footer = (
    <Stack gap={4} mt="lg" align="center">
      <Text size="sm">
        Already have an account?{' '}
        <Anchor component={Link} to="/login">
          Sign in
        </Anchor>
      </Text>
      <Text size="sm" c="dimmed">
        Questions before you sign up?{' '}
        <Anchor component={Link} to="/contact-us">
          Contact us
        </Anchor>
      </Text>
    </Stack>
  );

  // The operator adds users on a closed install (the admin CLI): nothing to fill in here.
  if (options.data?.registration === 'closed') {
    return (
      <AuthLayout title="Create your account" description="Registration is closed." width={520}>
        <Alert color="blue" data-testid="registration-closed">
          {REGISTRATION_MESSAGES.closed}
        </Alert>
        {footer}
      </AuthLayout>
    );
  }

  // A single-company install (`BILLING=off`) has no plans: the details are the only step.
  const hasPlans = options.data?.billing !== false;
  if (step === 'plan' && hasPlans) {
    return (
      <AuthLayout title="Create your account" description="Choose a plan to start with." width={960}>
        {plans.isPending || options.isPending ? (
          <Loading label="Loading plans" py="xl" />
        ) : plans.isError ? (
          <QueryStatus query={plans} label="Loading plans" failed="The plans could not be loaded" />
        ) : (
          <Stack>
            <SimpleGrid
              cols={{ base: 1, sm: 2, md: Math.min(3, plans.data.length) }}
              role="radiogroup"
              aria-label="Plan"
            >
              {plans.data.map((plan) => (
                <PlanCard
                  key={plan.id}
                  plan={plan}
                  testId={`register-plan-${plan.id}`}
                  isUnavailable={!isAvailable(plan)}
                  selection={{ isSelected: plan.id === chosenPlan?.id, onSelect: () => setPlanId(plan.id) }}
                >
                  <Button
                    variant={plan.id === chosenPlan?.id ? 'filled' : 'light'}
                    disabled={!isAvailable(plan)}
                    onClick={() => {
                      setPlanId(plan.id);
                      goToDetails(plan);
                    }}
                  >
                    Get Started
                  </Button>
                </PlanCard>
              ))}
            </SimpleGrid>
            {errors.package_id && (
              <Text c="red" size="sm" role="alert">
                {errors.package_id}
              </Text>
            )}
            <Group justify="flex-end">
              <Button onClick={() => goToDetails(chosenPlan)}>Next</Button>
            </Group>
          </Stack>
        )}
        {footer}
      </AuthLayout>
    );
  }

  return (
    <AuthLayout title="Create your account" description="Tell us who you are." width={520}>
      <FormStack onSubmit={form.onSubmit} error={alert}>
        <Stack gap={2} display={hasPlans ? undefined : 'none'}>
          <Group justify="space-between" wrap="nowrap">
            <Text size="sm" data-testid="register-chosen-plan">
              Plan: <strong>{chosenPlan?.name ?? 'none chosen'}</strong>
              {chosenPlan && !chosenPlan.isFree && ` · ${formatPlanPrice(chosenPlan)}`}
            </Text>
            <Anchor component="button" type="button" size="sm" onClick={goBack}>
              Change
            </Anchor>
          </Group>
          {errors.package_id && (
            <Text c="red" size="sm">
              {errors.package_id}
            </Text>
          )}
        </Stack>
        <RequiredTextInput ref={nameRef} label="Full Name" autoComplete="name" {...form.inputProps('name')} />
        <EmailField {...form.inputProps('email')} />
        <RequiredPasswordField
          label="Password"
          autoComplete="new-password"
          description="At least 6 characters."
          {...form.inputProps('password')}
        />
        <TextInput
          label="Referred by"
          description="Optional: the email address of whoever told you about Sendwell."
          type="email"
          {...form.inputProps('referred_by')}
        />
        <TimeZoneSelect
          label="Time zone"
          description="Scheduled emails, drip windows and every time you see use it. Change it later under Profile."
          value={timeZone}
          onChange={setTimeZone}
          error={errors.time_zone}
        />
        {isPaid && publishableKey && (
          <CardField
            ref={cardRef}
            publishableKey={publishableKey}
            error={errors.stripeToken}
            onChange={(isComplete) => {
              setIsCardComplete(isComplete);
              setErrors((current) => withoutError(current, 'stripeToken'));
            }}
          />
        )}
        <Checkbox
          label="I accept the terms of service"
          checked={isTermsAccepted}
          error={errors.terms}
          onChange={(event) => {
            setIsTermsAccepted(event.currentTarget.checked);
            setErrors((current) => withoutError(current, 'terms'));
          }}
        />
        <Captcha ref={captchaRef} onPayloadChange={changeCaptcha} error={errors.altcha} />
        <Group justify={hasPlans ? 'space-between' : 'flex-end'}>
          {hasPlans && (
            <Button variant="default" onClick={goBack}>
              Back
            </Button>
          )}
          <Button type="submit" loading={isTokenPending || register.isPending} data-testid="register-submit">
            Get Started
          </Button>
        </Group>
      </FormStack>
      {footer}
    </AuthLayout>
  );
};

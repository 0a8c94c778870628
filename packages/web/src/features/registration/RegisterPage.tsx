import {
  Alert,
  Anchor,
  Button,
  Center,
  Checkbox,
  Group,
  Loader,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { DEFAULT_FREE_PLAN_ID, REGISTRATION_MESSAGES, ZRegisterRequest } from '@sendwell/contracts';
import { IconAlertCircle } from '@tabler/icons-react';
import { type FormEvent, useCallback, useEffect, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiError } from '../../app/api';
import { fieldErrors, showError } from '../../app/errors';
import { firstIssueByField } from '../../app/forms';
import { PasswordField } from '../../components/PasswordField';
import { AuthLayout } from '../auth/AuthLayout';
import { formatPlanPrice } from '../billing/billing.format';
import { type TPlan, useBillingOptions, usePlans } from '../billing/billing.queries';
import { CardField, type TCardFieldHandle } from '../billing/CardField';
import { PlanCard } from '../billing/PlanCard';
import { Captcha, type TCaptchaHandle } from './Captcha';
import { type TRegistrationForm, useRegister } from './registration.queries';

type TStep = 'plan' | 'details';

const TERMS_REQUIRED = 'Please accept the terms of service.';

/** The fields a person types; a problem with any of them also earns the form-wide message. */
const TYPED_FIELDS = ['name', 'email', 'password', 'referred_by'];
const hasTypedFieldError = (errors: Record<string, string>): boolean => TYPED_FIELDS.some((field) => field in errors);

const withoutError = (errors: Record<string, string>, field: string): Record<string, string> => {
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
  const cardRef = useRef<TCardFieldHandle>(null);

  const [step, setStep] = useState<TStep>('plan');
  const [planId, setPlanId] = useState<number | null>(DEFAULT_FREE_PLAN_ID);
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [referredBy, setReferredBy] = useState('');
  const [isTermsAccepted, setIsTermsAccepted] = useState(false);
  const [isCardComplete, setIsCardComplete] = useState(false);
  const [captchaPayload, setCaptchaPayload] = useState<string | null>(null);
  const [isTokenPending, setIsTokenPending] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [alert, setAlert] = useState<string | null>(null);

  // Without a publishable key the server cannot take a card, so only free plans can be chosen.
  const publishableKey = options.data?.stripePublishableKey ?? null;
  const isAvailable = (plan: TPlan) => plan.isFree || publishableKey !== null;
  const chosenPlan = plans.data?.find((plan) => plan.id === planId && isAvailable(plan)) ?? null;
  const isPaid = chosenPlan !== null && !chosenPlan.isFree;

  useEffect(() => {
    if (step === 'details') nameRef.current?.focus();
  }, [step]);

  const changeCaptcha = useCallback((payload: string | null) => {
    setCaptchaPayload(payload);
    if (payload) setErrors((current) => withoutError(current, 'altcha'));
  }, []);

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

  const fail = (error: Error) => {
    // The server has seen this captcha solution; it will not take it twice.
    captchaRef.current?.reset();
    if (error instanceof ApiError && error.status === 422) {
      const fields = fieldErrors(error);
      setErrors(fields);
      if (hasTypedFieldError(fields)) setAlert(REGISTRATION_MESSAGES.form);
      else if (Object.keys(fields).length === 0) setAlert(error.message);
    } else if (error instanceof ApiError && error.status === 402) {
      setErrors({ stripeToken: error.message });
    } else if (error instanceof ApiError && error.status === 429) {
      setAlert(error.message);
    } else {
      showError(error);
    }
  };

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setAlert(null);
    const fields: TRegistrationForm = {
      name,
      email,
      password,
      referred_by: referredBy,
      package_id: chosenPlan ? String(chosenPlan.id) : '',
      stripeToken: '',
      altcha: captchaPayload ?? '',
    };
    const parsed = ZRegisterRequest.safeParse(fields);
    const issues = parsed.success ? {} : firstIssueByField(parsed.error.issues);
    if (!chosenPlan) issues.package_id = REGISTRATION_MESSAGES.package;
    if (isPaid && !isCardComplete) issues.stripeToken = REGISTRATION_MESSAGES.card;
    if (!isTermsAccepted) issues.terms = TERMS_REQUIRED;
    if (!captchaPayload) issues.altcha = REGISTRATION_MESSAGES.captcha;
    setErrors(issues);
    if (Object.keys(issues).length > 0) {
      if (hasTypedFieldError(issues)) setAlert(REGISTRATION_MESSAGES.form);
      return;
    }

    let stripeToken = '';
    if (isPaid) {
      setIsTokenPending(true);
      const card = (await cardRef.current?.createToken()) ?? { error: REGISTRATION_MESSAGES.card };
      setIsTokenPending(false);
      if ('error' in card) {
        setErrors({ stripeToken: card.error });
        return;
      }
      stripeToken = card.token;
    }

    register.mutate(
      { ...fields, stripeToken },
      { onSuccess: ({ route }) => navigate(appPath(route), { replace: true }), onError: fail },
    );
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

  if (step === 'plan') {
    return (
      <AuthLayout title="Create your account" description="Choose a plan to start with." width={960}>
        {plans.isPending || options.isPending ? (
          <Center py="xl">
            <Loader aria-label="Loading plans" />
          </Center>
        ) : plans.isError ? (
          <Alert color="red" icon={<IconAlertCircle size={18} />} title="The plans could not be loaded">
            <Button size="xs" variant="light" color="red" mt="xs" onClick={() => void plans.refetch()}>
              Try again
            </Button>
          </Alert>
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
      <form onSubmit={(event) => void submit(event)} noValidate>
        <Stack>
          {alert && (
            <Alert color="red" icon={<IconAlertCircle size={18} />}>
              {alert}
            </Alert>
          )}
          <Stack gap={2}>
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
          {/* The required fields say so in their messages; asterisks would add a stray ' *' to every label. */}
          <TextInput
            ref={nameRef}
            label="Full Name"
            name="name"
            autoComplete="name"
            required
            withAsterisk={false}
            value={name}
            error={errors.name}
            onChange={(event) => setName(event.currentTarget.value)}
          />
          <TextInput
            label="Email"
            type="email"
            name="email"
            autoComplete="email"
            required
            withAsterisk={false}
            value={email}
            error={errors.email}
            onChange={(event) => setEmail(event.currentTarget.value)}
          />
          <PasswordField
            label="Password"
            name="password"
            autoComplete="new-password"
            description="At least 6 characters."
            required
            withAsterisk={false}
            value={password}
            error={errors.password}
            onChange={(event) => setPassword(event.currentTarget.value)}
          />
          <TextInput
            label="Referred by"
            description="Optional: the email address of whoever told you about Sendwell."
            type="email"
            name="referred_by"
            value={referredBy}
            error={errors.referred_by}
            onChange={(event) => setReferredBy(event.currentTarget.value)}
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
          <Group justify="space-between">
            <Button variant="default" onClick={goBack}>
              Back
            </Button>
            <Button type="submit" loading={isTokenPending || register.isPending} data-testid="register-submit">
              Get Started
            </Button>
          </Group>
        </Stack>
      </form>
      {footer}
    </AuthLayout>
  );
};

import { Alert, Anchor, Button, Group, Text } from '@mantine/core';
import type { TSendEmailContent } from '@sendwell/contracts';
import { IconFlame, IconHistory } from '@tabler/icons-react';
import { type FormEvent, useCallback, useState } from 'react';
import { Link } from 'react-router';
import { PageHeader } from '../../components/PageHeader';
import { QueryStatus } from '../../components/QueryStatus';
import { NoAccounts } from '../accounts/NoAccounts';
import { ComposeForm, ComposeSection } from '../send-email/ComposeLayout';
import { EmailPreview } from '../send-email/EmailPreview';
import { MessageFields } from '../send-email/MessageFields';
import { SenderFields } from '../send-email/SenderFields';
import {
  fieldId,
  firstErrorField,
  fromLine,
  initialSendFormValues,
  type TFieldErrors,
  type TSendField,
  type TSendFormValues,
  withoutErrorsOf,
} from '../send-email/send-email.form';
import { useSendEmailContent } from '../send-email/send-email.queries';
import { creditsText, useSpamTestFlow } from './SpamTestFlow';
import { spamTestFieldErrors, validateSpamTestForm } from './spam-test.form';

/** Focuses the first field with a message, after the render that shows it. */
export const focusFirstError = (errors: TFieldErrors) => {
  const first = firstErrorField(errors);
  if (!first) return;
  setTimeout(() => {
    const input = document.getElementById(fieldId(first));
    input?.focus();
    input?.scrollIntoView?.({ block: 'center', behavior: 'smooth' });
  }, 0);
};

/** Below the cost the Test button is not offered (spec §5); this says why and where credits come from. */
export const NotEnoughCredits = ({ usable, credits }: { usable: number; credits: number }) => (
  <Alert color="orange" variant="light" title={`A spam test costs ${creditsText(credits)}`}>
    You have {usable.toLocaleString('en-US')} credits.{' '}
    <Anchor component={Link} to="/settings/subscription">
      Buy Credits
    </Anchor>{' '}
    to test your email.
  </Alert>
);

/** Where a spam test's message goes, as the preview shows it. */
const TEST_MAILBOX = ["Sendwell's test mailbox"];

const SpamTestForm = ({ content }: { content: TSendEmailContent }) => {
  const [values, setValues] = useState<TSendFormValues>(() => initialSendFormValues(content.chosenAccount));
  const [errors, setErrors] = useState<TFieldErrors>({});
  const usable = content.totalCredit - content.usedCredit;
  // The configured price; 0 on a single-company install (`BILLING=off`) or when tests are free.
  const credits = content.spamTestCredits;
  const isFree = credits === 0;
  const showErrors = (next: TFieldErrors) => {
    setErrors(next);
    focusFirstError(next);
  };
  const flow = useSpamTestFlow({
    usableCredits: usable,
    credits,
    whenScored: 'navigate',
    onFieldErrors: (fields) => showErrors(spamTestFieldErrors(fields)),
  });
  const account = content.accounts.find((candidate) => candidate.id === Number(values.account));
  // Stable, and the errors object kept when nothing is cleared, so the memoised sections
  // (sender, preview) skip the keystrokes that are not theirs.
  const update = useCallback((patch: Partial<TSendFormValues>) => {
    setValues((current) => ({ ...current, ...patch }));
    setErrors((current) => withoutErrorsOf(current, Object.keys(patch)));
  }, []);
  const changeAccount = useCallback((id: string) => update({ account: id }), [update]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!account) {
      showErrors({ account: 'Please choose a sending account.' } satisfies Partial<Record<TSendField, string>>);
      return;
    }
    const result = validateSpamTestForm(values, {
      provider: account.provider,
      domain: account.domain,
      allowsScheduling: content.allowsScheduling,
      timeZone: content.timeZone,
    });
    if (!result.ok) showErrors(result.errors);
    else flow.begin(result.request);
  };

  return (
    <>
      <ComposeForm
        label="Spam test"
        onSubmit={submit}
        preview={
          <EmailPreview
            html={values.message}
            subject={values.subject}
            from={fromLine(values, account)}
            to={TEST_MAILBOX}
          />
        }
      >
        <ComposeSection title="From">
          <SenderFields
            values={values}
            errors={errors}
            accounts={content.accounts}
            account={account}
            onChange={update}
            onAccountChange={changeAccount}
          />
        </ComposeSection>
        <ComposeSection title="Message">
          <MessageFields values={values} errors={errors} templates={content.templates} onChange={update} isTest />
        </ComposeSection>
        {usable >= credits ? (
          <Group justify={isFree ? 'flex-end' : 'space-between'}>
            {!isFree && (
              <Text size="sm" c="dimmed">
                {creditsText(credits)} a test; you have {usable.toLocaleString('en-US')}.
              </Text>
            )}
            <Button type="submit" size="md" leftSection={<IconFlame size={18} aria-hidden />} loading={flow.isBusy}>
              Test Email
            </Button>
          </Group>
        ) : (
          <NotEnoughCredits usable={usable} credits={credits} />
        )}
      </ComposeForm>
      {flow.modals}
    </>
  );
};

/** Testing Sending Mails (spec §2 screen 3): the send form without recipients, and a Test Email button. */
export const SpamTestPage = () => {
  const content = useSendEmailContent();
  return (
    <>
      <PageHeader
        title="Testing Sending Mails"
        description="Send an email through one of your accounts to Sendwell's test mailbox and see its spam score out of 10, with what to fix."
        actions={
          <Button
            component={Link}
            to="/tools/mail-testing/history"
            variant="default"
            leftSection={<IconHistory size={16} aria-hidden />}
          >
            Test history
          </Button>
        }
      />
      <QueryStatus query={content} label="Loading" failed="The spam test could not be loaded" py="xl" />
      {content.data &&
        (content.data.accounts.length === 0 ? (
          <NoAccounts why="A spam test goes out through one of your sending accounts, so the score is the one your real emails get." />
        ) : (
          <SpamTestForm content={content.data} />
        ))}
    </>
  );
};

import { Anchor, Button, Group, Modal, Progress, Stack, Text, Title } from '@mantine/core';
import { type ReactNode, useState } from 'react';

type TStep = { title: string; body: ReactNode };

const STEPS: TStep[] = [
  {
    title: 'Turn on 2-Step Verification',
    body: (
      <>
        Google offers app passwords only to accounts with 2-Step Verification. Turn it on in your{' '}
        <Anchor
          href="https://myaccount.google.com/signinoptions/two-step-verification"
          target="_blank"
          rel="noreferrer"
        >
          Google Account
        </Anchor>{' '}
        if it is not on yet.
      </>
    ),
  },
  {
    title: 'Open App passwords',
    body: (
      <>
        On your Google Account&apos;s Security page, open{' '}
        <Anchor href="https://myaccount.google.com/apppasswords" target="_blank" rel="noreferrer">
          App passwords
        </Anchor>
        . Google may ask you to sign in again.
      </>
    ),
  },
  {
    title: 'Create an app password named Sendwell',
    body: 'Type Sendwell as the app name and press Create, so you can tell later what the password is for.',
  },
  {
    title: 'Copy the 16-character password',
    body: 'Google shows the app password once, as four groups of four letters. Copy it; the spaces do not matter.',
  },
  {
    title: 'Paste it here and Save',
    body: 'Enter your Gmail address and paste the app password into this form, press Test SMTP, then Save.',
  },
];

type TProps = { opened: boolean; onClose: () => void };

/** The spec's five-step 'Gmail Services' help: Prev is off on the first step, Finish closes and starts over. */
export const GmailHelpModal = ({ opened, onClose }: TProps) => {
  // Kept while the dialog is closed by its X, so reopening continues where the user was.
  const [index, setIndex] = useState(0);
  const step = STEPS[index]!;
  const isLast = index === STEPS.length - 1;

  const finish = () => {
    setIndex(0);
    onClose();
  };

  return (
    <Modal opened={opened} onClose={onClose} title="Gmail Services">
      <Stack data-testid="gmail-help">
        <Stack gap={6}>
          <Text size="sm" c="dimmed" data-testid="gmail-help-step">
            Step {index + 1} of {STEPS.length}
          </Text>
          <Progress value={((index + 1) / STEPS.length) * 100} size="sm" aria-hidden />
        </Stack>
        <Title order={3} fz="h4">
          {step.title}
        </Title>
        <Text>{step.body}</Text>
        <Group justify="space-between">
          <Button variant="default" disabled={index === 0} onClick={() => setIndex(index - 1)}>
            Prev
          </Button>
          {isLast ? (
            <Button onClick={finish}>Finish</Button>
          ) : (
            <Button onClick={() => setIndex(index + 1)}>Next</Button>
          )}
        </Group>
      </Stack>
    </Modal>
  );
};

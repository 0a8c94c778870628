import { Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import type { FormEvent, ReactNode } from 'react';
import { FormStack } from './FormStack';

type TProps = {
  icon?: ReactNode;
  title: string;
  description?: ReactNode;
  children: ReactNode;
};

/** The id of a section's heading, for a form inside it to be named by (titles are unique on a screen). */
export const settingsSectionId = (title: string) => `section-${title.toLowerCase().replace(/\W+/g, '-')}`;

/** One part of a settings screen (profile, signup form, API keys, webhooks): a heading that names the section, what it is for, its form. */
export const SettingsSection = ({ icon, title, description, children }: TProps) => {
  const headingId = settingsSectionId(title);
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby={headingId}>
      <Stack gap="md">
        <Stack gap={4}>
          <Group gap="xs">
            {icon}
            <Title order={2} fz="lg" id={headingId}>
              {title}
            </Title>
          </Group>
          {description && (
            <Text size="sm" c="dimmed">
              {description}
            </Text>
          )}
        </Stack>
        {children}
      </Stack>
    </Paper>
  );
};

type TFormProps = Omit<TProps, 'children'> & {
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
  /** The submit button's words; it spins while `isPending`. */
  submitLabel: string;
  isPending: boolean;
  /** The submit button's icon, left of its words. */
  submitIcon?: ReactNode;
  /** Nothing to save yet (the time zone chosen is the one saved). */
  isSubmitDisabled?: boolean;
  children: ReactNode;
};

/** A section that is one form: named by the section's heading, its fields, then its submit button at the right. */
export const SettingsForm = ({
  onSubmit,
  submitLabel,
  isPending,
  submitIcon,
  isSubmitDisabled,
  children,
  ...section
}: TFormProps) => (
  <SettingsSection {...section}>
    <FormStack onSubmit={onSubmit} aria-labelledby={settingsSectionId(section.title)}>
      {children}
      <Group justify="flex-end">
        <Button type="submit" loading={isPending} leftSection={submitIcon} disabled={isSubmitDisabled}>
          {submitLabel}
        </Button>
      </Group>
    </FormStack>
  </SettingsSection>
);

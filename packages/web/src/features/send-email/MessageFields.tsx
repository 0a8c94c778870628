import { Button, Code, Group, SimpleGrid, Stack, Switch, Text, TextInput } from '@mantine/core';
import { modals } from '@mantine/modals';
import type { TTemplate } from '@sendwell/contracts';
import { IconDeviceFloppy, IconTemplate, IconTrash } from '@tabler/icons-react';
import { memo, useCallback, useMemo, useRef, useState } from 'react';
import { showSuccess } from '../../app/toasts';
import { LazyEmailEditor, type TEmailContent } from '../../components/email-editor/LazyEmailEditor';
import { SaveTemplateModal } from './SaveTemplateModal';
import { fieldId, type TFieldErrors, type TSendFormValues, textFieldProps } from './send-email.form';
import { useDeleteTemplate } from './send-email.queries';
import { TemplateGallery } from './TemplateGallery';

type TProps = {
  values: TSendFormValues;
  errors: TFieldErrors;
  templates: TTemplate[];
  onChange: (patch: Partial<TSendFormValues>) => void;
  /** The spam test's form: no copies, reply-to or tracking (the test message goes to one address, as it is). */
  isTest?: boolean;
};

/** Asks before a template or a file replaces what the user wrote; an empty or unchanged message is replaced at once. */
const confirmReplace = (current: string, next: string, source: string, replace: () => void) => {
  if (!current.trim() || current === next) {
    replace();
    return;
  }
  modals.openConfirmModal({
    title: 'Replace your message?',
    children: <Text size="sm">{source} replaces the message you have written. This cannot be undone.</Text>,
    labels: { confirm: 'Replace', cancel: 'Keep my message' },
    onConfirm: replace,
  });
};

type TTemplatePickerProps = {
  value: string | null;
  templates: TTemplate[];
  onPick: (id: string) => void;
  onDeleted: () => void;
};

/**
 * The template the message started from, **Change Template** (spec §2.2: a button, opening the
 * gallery of templates) and the delete button of the user's own template.
 */
const TemplatePicker = memo(({ value, templates, onPick, onDeleted }: TTemplatePickerProps) => {
  const deleteTemplate = useDeleteTemplate();
  const [isChoosing, setIsChoosing] = useState(false);
  const chosen = templates.find((template) => String(template.id) === value);

  const removeTemplate = (template: TTemplate) =>
    modals.openConfirmModal({
      title: 'Delete this template?',
      children: (
        <Text size="sm">
          “{template.name}” will no longer be offered. Emails already sent with it are not affected.
        </Text>
      ),
      labels: { confirm: 'Delete', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        deleteTemplate.mutate(Number(template.id), {
          onSuccess: ({ message }) => {
            showSuccess(message);
            onDeleted();
          },
        }),
    });

  return (
    <Group justify="space-between" align="center" gap="xs">
      <Group gap={6} wrap="nowrap" miw={0}>
        <IconTemplate size={16} aria-hidden style={{ flexShrink: 0 }} />
        <Text size="sm" fw={500}>
          Template:
        </Text>
        <Text size="sm" c={chosen ? undefined : 'dimmed'} data-testid="chosen-template" truncate>
          {chosen ? chosen.name : 'none'}
        </Text>
      </Group>
      <Group gap="xs">
        {chosen && !chosen.builtIn && (
          <Button
            variant="subtle"
            color="red"
            size="xs"
            leftSection={<IconTrash size={12} aria-hidden />}
            loading={deleteTemplate.isPending}
            onClick={() => removeTemplate(chosen)}
          >
            Delete this template
          </Button>
        )}
        <Button
          id="send-email-template"
          variant="default"
          size="xs"
          leftSection={<IconTemplate size={14} aria-hidden />}
          onClick={() => setIsChoosing(true)}
        >
          Change Template
        </Button>
      </Group>
      <TemplateGallery
        opened={isChoosing}
        templates={templates}
        currentId={value}
        onClose={() => setIsChoosing(false)}
        onPick={(id) => {
          setIsChoosing(false);
          onPick(id);
        }}
      />
    </Group>
  );
});

/**
 * Subject, copies, reply-to and the HTML message with its template, file import and tracking
 * (spec §2 screen 2). A keystroke re-renders the field it changes and this component's own
 * inputs; the template picker and the toolbar only when their own props change (they read the
 * message through a ref), so typing stays quick on a slow machine.
 */
export const MessageFields = ({ values, errors, templates, onChange, isTest = false }: TProps) => {
  const [isSaving, setIsSaving] = useState(false);
  const latest = useRef(values);
  latest.current = values;

  const pickTemplate = useCallback(
    (id: string) => {
      const template = templates.find((candidate) => String(candidate.id) === id);
      if (!template) return;
      const current = latest.current;
      confirmReplace(current.message, template.html, `The template “${template.name}”`, () =>
        onChange({
          template: String(template.id),
          message: template.html,
          document: template.document,
          // A subject the user typed stays; the template's fills an empty one.
          ...(current.subject.trim() ? {} : { subject: template.subject }),
        }),
      );
    },
    [templates, onChange],
  );
  const clearTemplate = useCallback(() => onChange({ template: null }), [onChange]);

  const changeContent = useCallback(
    (content: TEmailContent) => onChange({ message: content.html, document: content.document }),
    [onChange],
  );
  const content = useMemo(
    () => ({ html: values.message, document: values.document }),
    [values.message, values.document],
  );

  const openSave = useCallback(() => setIsSaving(true), []);

  return (
    <Stack gap="sm">
      <TemplatePicker value={values.template} templates={templates} onPick={pickTemplate} onDeleted={clearTemplate} />
      <TextInput label="Subject" required {...textFieldProps('subject', values, errors, onChange)} />
      {!isTest && (
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
          <TextInput
            label="CC"
            placeholder="a@example.com, b@example.com"
            {...textFieldProps('cc', values, errors, onChange)}
          />
          <TextInput label="BCC" placeholder="a@example.com" {...textFieldProps('bcc', values, errors, onChange)} />
          <TextInput
            label="Reply To"
            type="email"
            placeholder="replies@example.com"
            {...textFieldProps('reply', values, errors, onChange)}
          />
        </SimpleGrid>
      )}
      <Group justify="flex-end">
        <Button variant="default" size="xs" leftSection={<IconDeviceFloppy size={14} aria-hidden />} onClick={openSave}>
          Save as template
        </Button>
      </Group>
      <LazyEmailEditor
        id={fieldId('message')}
        label="Message"
        subject={values.subject}
        value={content}
        onChange={changeContent}
        error={errors.message}
      />
      <Text size="xs" c="dimmed">
        Merge fields: <Code>{'{{first_name}}'}</Code>, <Code>{'{{name}}'}</Code>, <Code>{'{{email}}'}</Code>,{' '}
        <Code>{'{{field::fallback}}'}</Code> — the fallback shows when a member has no value (Personalise inserts them).
      </Text>
      {!isTest && (
        <Group gap="xl">
          <Switch
            label="Track opens"
            checked={values.trackOpens}
            onChange={(event) => onChange({ trackOpens: event.currentTarget.checked })}
          />
          <Switch
            label="Track clicks"
            checked={values.trackClicks}
            onChange={(event) => onChange({ trackClicks: event.currentTarget.checked })}
          />
        </Group>
      )}
      <SaveTemplateModal
        opened={isSaving}
        subject={values.subject}
        html={values.message}
        document={values.document}
        onClose={() => setIsSaving(false)}
        onSaved={(template) => onChange({ template: String(template.id) })}
      />
    </Stack>
  );
};

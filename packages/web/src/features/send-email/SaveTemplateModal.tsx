import { Alert, Modal, Text, TextInput } from '@mantine/core';
import { type TEmailDocument, type TTemplate, ZSaveTemplateRequest } from '@sendwell/contracts';
import { IconAlertCircle } from '@tabler/icons-react';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../app/api';
import { fieldErrors, showError } from '../../app/errors';
import { firstIssueByField } from '../../app/forms';
import { showSuccess } from '../../app/toasts';
import { DialogActions } from '../../components/DialogActions';
import { FormStack } from '../../components/FormStack';
import { useSaveTemplate } from './send-email.queries';

type TProps = {
  opened: boolean;
  subject: string;
  html: string;
  document: TEmailDocument | null;
  onClose: () => void;
  onSaved: (template: TTemplate) => void;
};

const SaveTemplateForm = ({ subject, html, document, onClose, onSaved }: Omit<TProps, 'opened'>) => {
  const save = useSaveTemplate();
  const [name, setName] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const request = { name, subject, html, document };
    const parsed = ZSaveTemplateRequest.safeParse(request);
    if (!parsed.success) {
      setErrors(firstIssueByField(parsed.error.issues));
      return;
    }
    save.mutate(parsed.data, {
      onSuccess: ({ message, data }) => {
        showSuccess(message);
        onSaved(data);
        onClose();
      },
      onError: (error) => {
        if (error instanceof ApiError && error.status === 422) setErrors(fieldErrors(error));
        else showError(error);
      },
    });
  };

  return (
    <FormStack onSubmit={submit}>
      <Text size="sm" c="dimmed">
        The message and the subject are saved; the template picker offers them from now on.
      </Text>
      {(errors.html || errors.subject) && (
        <Alert color="red" icon={<IconAlertCircle size={18} />}>
          {errors.html ?? errors.subject}
        </Alert>
      )}
      <TextInput
        label="Template name"
        required
        data-autofocus
        value={name}
        error={errors.name}
        onChange={(event) => {
          setName(event.currentTarget.value);
          setErrors(({ name: _name, ...rest }) => rest);
        }}
      />
      <DialogActions onCancel={onClose} isPending={save.isPending} submitLabel="Save template" />
    </FormStack>
  );
};

/** Save as template: the form's message and subject under a name of the user's choosing. */
export const SaveTemplateModal = ({ opened, ...props }: TProps) => (
  <Modal opened={opened} onClose={props.onClose} title="Save as template">
    {opened && <SaveTemplateForm {...props} />}
  </Modal>
);

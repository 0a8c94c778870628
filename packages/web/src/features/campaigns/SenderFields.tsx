import { Group, Text, TextInput } from '@mantine/core';
import type { TEmailDocument } from '@sendwell/contracts';
import type { ChangeEvent } from 'react';
import { LazyEmailEditor } from '../../components/email-editor/LazyEmailEditor';

type TSignature = { html: string; document: TEmailDocument | null };

/** The signature's value and change handler, for a form whose values hold `signature` and its document. */
export const signatureField = <V extends { signature?: string | undefined; signatureDocument?: unknown }>(
  values: V,
  setValues: (update: (current: V) => V) => void,
) => ({
  signature: { html: values.signature ?? '', document: (values.signatureDocument ?? null) as TEmailDocument | null },
  onSignature: ({ html, document }: TSignature) =>
    setValues((current) => ({ ...current, signature: html, signatureDocument: document })),
});

type TInput = {
  name: string;
  value: string;
  error: string | undefined;
  onChange: (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => void;
};

/**
 * Who a campaign is from (spec §2 Start, the Settings tab): its title, the sender name
 * (required for SMTP and Gmail accounts, which send as the name alone), the alias before the
 * account's domain for the others, and the signature in the email editor. The inputs come
 * from the form (`useZodForm`'s `inputProps`).
 */
export const SenderFields = ({
  titleLabel,
  aliasLabel,
  isNameOnly,
  domain,
  fromAddress,
  title,
  senderName,
  alias,
  signature,
  onSignature,
}: {
  titleLabel: string;
  aliasLabel: string;
  isNameOnly: boolean;
  /** The account's domain, shown read-only after the alias; null before an account is chosen. */
  domain: string | null;
  /** The address an SMTP or Gmail account sends from. */
  fromAddress?: string | undefined;
  title: TInput;
  senderName: TInput;
  alias: TInput;
  signature: TSignature;
  onSignature: (signature: TSignature) => void;
}) => (
  <>
    <TextInput label={titleLabel} required {...title} />
    <TextInput label="Sender Name" required={isNameOnly} {...senderName} />
    {!isNameOnly && domain !== null && (
      <Group align="flex-end" gap={4} wrap="nowrap">
        <TextInput label={aliasLabel} required {...alias} style={{ flex: 1 }} />
        <Text pb={8}>@</Text>
        <TextInput label="Domain" readOnly value={domain} style={{ flex: 1 }} />
      </Group>
    )}
    {isNameOnly && fromAddress && (
      <Text size="sm" c="dimmed">
        Sends from {fromAddress}.
      </Text>
    )}
    <LazyEmailEditor
      id="campaign-signature"
      label="Signature"
      isFragment
      value={signature}
      onChange={(content) => onSignature({ html: content.html, document: content.document })}
    />
  </>
);

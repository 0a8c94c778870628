import { Text, type TextProps } from '@mantine/core';

/**
 * An email address in a table cell (issue 45 §4). A table squeezed onto a phone made each
 * column as narrow as its longest unbreakable piece, and an address that may break anywhere
 * has none: it came out a few letters a line, over four lines and more. Here the column keeps
 * a readable width (`minWidth`), and the address breaks before its `@` first, within a part
 * only when the part alone is wider; the table scrolls sideways in its own box instead.
 */
/** The address with a break allowed just before its `@`, where a reader expects one. */
export const breakBeforeAt = (email: string) => {
  const at = email.lastIndexOf('@');
  return at > 0 ? (
    <>
      {email.slice(0, at)}
      <wbr />
      {email.slice(at)}
    </>
  ) : (
    email
  );
};

/** The style of an address that may break (before its `@` first) but keeps a readable width. */
export const addressStyle = (minWidth = '15rem') =>
  ({ overflowWrap: 'anywhere', display: 'inline-block', minWidth }) as const;

export const EmailAddress = ({
  email,
  minWidth = '15rem',
  ...props
}: { email: string; minWidth?: string } & Omit<TextProps, 'children'>) => {
  return (
    <Text size="sm" {...props} style={addressStyle(minWidth)}>
      {breakBeforeAt(email)}
    </Text>
  );
};

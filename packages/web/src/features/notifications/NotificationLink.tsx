import { Anchor } from '@mantine/core';
import { IconExternalLink } from '@tabler/icons-react';
import { Link } from 'react-router';

/**
 * Links in notifications are written by the server, but are still never trusted as `href`s as they
 * are: only in-app paths and http(s) addresses become links, so a `javascript:` value stays text.
 */
export const safeNotificationHref = (link: string): { kind: 'internal' | 'external'; href: string } | null => {
  if (link.startsWith('/') && !link.startsWith('//')) return { kind: 'internal', href: link };
  try {
    const url = new URL(link);
    return url.protocol === 'https:' || url.protocol === 'http:' ? { kind: 'external', href: url.href } : null;
  } catch {
    return null;
  }
};

export const NotificationLink = ({ link }: { link: string }) => {
  const target = safeNotificationHref(link);
  if (!target) return null;
  if (target.kind === 'internal') {
    return (
      <Anchor component={Link} to={target.href} size="sm">
        Open
      </Anchor>
    );
  }
  return (
    <Anchor href={target.href} target="_blank" rel="noopener noreferrer" size="sm">
      Open <IconExternalLink size={14} aria-hidden style={{ verticalAlign: 'middle' }} />
    </Anchor>
  );
};

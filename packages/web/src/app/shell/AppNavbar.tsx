import { Badge, NavLink, ScrollArea } from '@mantine/core';
import { IconChevronRight, IconSpeakerphone } from '@tabler/icons-react';
import { useState } from 'react';
import { Link, useLocation } from 'react-router';
import { useAnnouncement } from '../../features/announcements/announcements';
import { isNavigationGroup, type TNavigationGroup, type TNavigationLink, visibleNavigation } from '../navigation';
import { useSignedInUser } from '../session';

/** A count beside a link (Support: answers not read yet), or nothing. */
const useLinkBadge = (path: string): number => {
  const user = useSignedInUser();
  return path === '/support' ? user.unread_tickets : 0;
};

/** `/` is active only on itself; every other link also covers the screens below it. */
const isActive = (path: string, pathname: string): boolean =>
  path === '/' ? pathname === '/' : pathname === path || pathname.startsWith(`${path}/`);

const LinkItem = ({
  link,
  pathname,
  onNavigate,
}: {
  link: TNavigationLink;
  pathname: string;
  onNavigate: () => void;
}) => {
  const Icon = link.icon;
  const active = isActive(link.path, pathname);
  const badge = useLinkBadge(link.path);
  return (
    <NavLink
      component={Link}
      to={link.path}
      label={link.label}
      leftSection={<Icon size={18} stroke={1.6} />}
      rightSection={
        badge > 0 ? (
          <Badge size="sm" color="red" circle aria-label={`${badge} unread`}>
            {badge}
          </Badge>
        ) : undefined
      }
      active={active}
      aria-current={active ? 'page' : undefined}
      onClick={onNavigate}
    />
  );
};

/**
 * A group that opens and closes its links. A button, not Mantine's default `<a>` without
 * href, which Tab skips and assistive technology does not announce; aria-expanded says
 * whether its links show.
 */
const GroupItem = ({
  group,
  pathname,
  onNavigate,
}: {
  group: TNavigationGroup;
  pathname: string;
  onNavigate: () => void;
}) => {
  const [isOpened, setOpened] = useState(() => group.children.some((child) => isActive(child.path, pathname)));
  const Icon = group.icon;
  return (
    <NavLink
      component="button"
      type="button"
      label={group.label}
      leftSection={<Icon size={18} stroke={1.6} />}
      rightSection={<IconChevronRight size={14} />}
      opened={isOpened}
      onChange={setOpened}
      aria-expanded={isOpened}
    >
      {group.children.map((child) => (
        <LinkItem key={child.path} link={child} pathname={pathname} onNavigate={onNavigate} />
      ))}
    </NavLink>
  );
};

export const AppNavbar = ({ onNavigate }: { onNavigate: () => void }) => {
  const { pathname } = useLocation();
  const user = useSignedInUser();
  const announcement = useAnnouncement();
  return (
    <ScrollArea component="nav" aria-label="Main" p="sm" h="100%">
      {visibleNavigation(undefined, user.role, { billing: user.billing }).map((entry) => {
        if (!isNavigationGroup(entry)) {
          return <LinkItem key={entry.path} link={entry} pathname={pathname} onNavigate={onNavigate} />;
        }
        return <GroupItem key={entry.label} group={entry} pathname={pathname} onNavigate={onNavigate} />;
      })}
      {announcement.hasAnnouncement && (
        <NavLink
          component="button"
          type="button"
          label="Announcements"
          leftSection={<IconSpeakerphone size={18} stroke={1.6} />}
          onClick={() => {
            announcement.open();
            onNavigate();
          }}
        />
      )}
    </ScrollArea>
  );
};

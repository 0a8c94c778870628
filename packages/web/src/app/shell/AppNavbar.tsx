import { NavLink, ScrollArea } from '@mantine/core';
import { IconChevronRight } from '@tabler/icons-react';
import { useState } from 'react';
import { Link, useLocation } from 'react-router';
import { isNavigationGroup, type TNavigationGroup, type TNavigationLink, visibleNavigation } from '../navigation';

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
  return (
    <NavLink
      component={Link}
      to={link.path}
      label={link.label}
      leftSection={<Icon size={18} stroke={1.6} />}
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
  return (
    <ScrollArea component="nav" aria-label="Main" p="sm" h="100%">
      {visibleNavigation().map((entry) => {
        if (!isNavigationGroup(entry)) {
          return <LinkItem key={entry.path} link={entry} pathname={pathname} onNavigate={onNavigate} />;
        }
        return <GroupItem key={entry.label} group={entry} pathname={pathname} onNavigate={onNavigate} />;
      })}
    </ScrollArea>
  );
};

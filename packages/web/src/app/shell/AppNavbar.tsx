import { NavLink, ScrollArea } from '@mantine/core';
import { IconChevronRight } from '@tabler/icons-react';
import { Link, useLocation } from 'react-router';
import { isNavigationGroup, type TNavigationLink, visibleNavigation } from '../navigation';

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

export const AppNavbar = ({ onNavigate }: { onNavigate: () => void }) => {
  const { pathname } = useLocation();
  return (
    <ScrollArea component="nav" aria-label="Main" p="sm" h="100%">
      {visibleNavigation().map((entry) => {
        if (!isNavigationGroup(entry)) {
          return <LinkItem key={entry.path} link={entry} pathname={pathname} onNavigate={onNavigate} />;
        }
        const Icon = entry.icon;
        return (
          <NavLink
            key={entry.label}
            label={entry.label}
            leftSection={<Icon size={18} stroke={1.6} />}
            rightSection={<IconChevronRight size={14} />}
            defaultOpened={entry.children.some((child) => isActive(child.path, pathname))}
          >
            {entry.children.map((child) => (
              <LinkItem key={child.path} link={child} pathname={pathname} onNavigate={onNavigate} />
            ))}
          </NavLink>
        );
      })}
    </ScrollArea>
  );
};

import { Avatar, Group, Menu, Text, UnstyledButton, VisuallyHidden } from '@mantine/core';
import { IconChevronDown, IconLogout, IconUserCircle } from '@tabler/icons-react';
import { Link } from 'react-router';
import { useSignOut } from '../../features/auth/auth.queries';
import { useSignedInUser } from '../session';

export const UserMenu = () => {
  const user = useSignedInUser();
  const signOut = useSignOut();
  return (
    <Menu position="bottom-end" width={240} shadow="md">
      <Menu.Target>
        {/*
          Named by the visible name, not an aria-label: speech users say what they see (WCAG 2.5.3),
          and the menu role says the rest. The initials are decoration; where the name does not fit,
          it is still read.
        */}
        <UnstyledButton>
          <Group gap={8} wrap="nowrap">
            <Avatar name={user.name} color="initials" size={30} radius="xl" aria-hidden />
            <Text size="sm" fw={500} data-testid="user-name" visibleFrom="sm" maw={180} truncate>
              {user.name}
            </Text>
            <VisuallyHidden hiddenFrom="sm">{user.name}</VisuallyHidden>
            <IconChevronDown size={14} aria-hidden />
          </Group>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>
          <Text size="sm" fw={500} c="var(--mantine-color-text)" truncate>
            {user.email}
          </Text>
          <Text size="xs" c="dimmed">
            {user.plan.name} plan
          </Text>
        </Menu.Label>
        <Menu.Divider />
        <Menu.Item component={Link} to="/settings/profile" leftSection={<IconUserCircle size={16} />}>
          Profile
        </Menu.Item>
        <Menu.Item leftSection={<IconLogout size={16} />} disabled={signOut.isPending} onClick={() => signOut.mutate()}>
          Sign out
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
};

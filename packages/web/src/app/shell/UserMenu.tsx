import { Avatar, Group, Menu, Text, UnstyledButton } from '@mantine/core';
import { IconChevronDown, IconLogout } from '@tabler/icons-react';
import { useSignOut } from '../../features/auth/auth.queries';
import { useSignedInUser } from '../session';

export const UserMenu = () => {
  const user = useSignedInUser();
  const signOut = useSignOut();
  return (
    <Menu position="bottom-end" width={240} shadow="md">
      <Menu.Target>
        <UnstyledButton aria-label={`Account menu for ${user.name}`}>
          <Group gap={8} wrap="nowrap">
            <Avatar name={user.name} color="initials" size={30} radius="xl" />
            <Text size="sm" fw={500} data-testid="user-name" visibleFrom="sm" maw={180} truncate>
              {user.name}
            </Text>
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
        <Menu.Item leftSection={<IconLogout size={16} />} disabled={signOut.isPending} onClick={() => signOut.mutate()}>
          Sign out
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
};

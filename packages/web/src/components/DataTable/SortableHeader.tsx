import { Group, Table, UnstyledButton } from '@mantine/core';
import { IconArrowDown, IconArrowsSort, IconArrowUp } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import type { TDataTableSort } from './DataTable.types';

type TProps = {
  column: string;
  title: ReactNode;
  sort: TDataTableSort | undefined;
  onSort: (column: string) => void;
  width?: number | string;
};

export const SortableHeader = ({ column, title, sort, onSort, width }: TProps) => {
  const order = sort?.column === column ? sort.order : null;
  const Arrow = order === 'asc' ? IconArrowUp : order === 'desc' ? IconArrowDown : IconArrowsSort;
  return (
    <Table.Th w={width} aria-sort={order === 'asc' ? 'ascending' : order === 'desc' ? 'descending' : 'none'}>
      {/* Full width, so a click anywhere in the header cell sorts, not only on the words. */}
      <UnstyledButton onClick={() => onSort(column)} fw={600} fz="sm" w="100%">
        <Group gap={4} wrap="nowrap">
          {title}
          <Arrow size={14} stroke={1.8} aria-hidden opacity={order ? 1 : 0.4} />
        </Group>
      </UnstyledButton>
    </Table.Th>
  );
};

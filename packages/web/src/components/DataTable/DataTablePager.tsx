import { Button, Group } from '@mantine/core';
import { pageWindow } from '@sendwell/contracts';

type TProps = {
  page: number;
  lastPage: number;
  onChange: (page: number) => void;
};

/** First, Prev, up to four pages either side of the current one, Next, Last (spec §9). */
export const DataTablePager = ({ page, lastPage, onChange }: TProps) => {
  const isFirst = page <= 1;
  const isLast = page >= lastPage;
  return (
    <Group component="nav" aria-label="Pagination" gap={4} wrap="wrap">
      <Button variant="default" size="xs" disabled={isFirst} onClick={() => onChange(1)}>
        First
      </Button>
      <Button variant="default" size="xs" disabled={isFirst} onClick={() => onChange(page - 1)}>
        Prev
      </Button>
      {pageWindow(page, lastPage).map((number) => (
        <Button
          key={number}
          size="xs"
          miw={32}
          px={8}
          variant={number === page ? 'filled' : 'default'}
          aria-current={number === page ? 'page' : undefined}
          onClick={() => onChange(number)}
        >
          {number}
        </Button>
      ))}
      <Button variant="default" size="xs" disabled={isLast} onClick={() => onChange(page + 1)}>
        Next
      </Button>
      <Button variant="default" size="xs" disabled={isLast} onClick={() => onChange(lastPage)}>
        Last
      </Button>
    </Group>
  );
};

import { Badge } from '@mantine/core';

/** Marks an event that is not the recipient's first of its kind: the figures count a recipient once. */
export const RepeatBadge = () => (
  <Badge variant="outline" color="gray" title="A repeat: the recipient is counted once">
    again
  </Badge>
);

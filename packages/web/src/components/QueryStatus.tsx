import { Center, Loader, type MantineSpacing } from '@mantine/core';
import { LoadFailedAlert } from './LoadFailedAlert';

type TLoadingProps = {
  /** What is loading, for a screen reader ("Loading the ticket"). */
  label: string;
  /** Room above and below: a page gives it more than a modal. */
  py?: MantineSpacing;
};

/** A part of a screen whose data is on its way: a centred spinner that says what it waits for. */
export const Loading = ({ label, py = 'lg' }: TLoadingProps) => (
  <Center py={py}>
    <Loader aria-label={label} />
  </Center>
);

type TQuery = { isPending: boolean; isError: boolean; refetch: () => unknown };

type TQueryStatusProps = TLoadingProps & {
  query: TQuery;
  /** The alert's title once the query failed ("The ticket could not be loaded."). */
  failed: string;
};

/**
 * A query's spinner while it runs and its alert with Try again once it failed; nothing once it
 * has data. Screens show it in place of the part the query feeds:
 * `if (ticket.isPending || ticket.isError) return <QueryStatus query={ticket} … />`.
 */
export const QueryStatus = ({ query, failed, ...loading }: TQueryStatusProps) => {
  if (query.isPending) return <Loading {...loading} />;
  if (query.isError) return <LoadFailedAlert title={failed} onRetry={() => void query.refetch()} />;
  return null;
};

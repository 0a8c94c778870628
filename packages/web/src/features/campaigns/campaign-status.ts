import type { TCampaignState } from '@sendwell/contracts';

/** How a campaign's state looks, the same on the list and on its page. */
export const STATUS_LOOK: Record<TCampaignState, { label: string; color: string }> = {
  running: { label: 'Running', color: 'green' },
  paused: { label: 'Paused', color: 'gray' },
  scheduled: { label: 'Scheduled', color: 'blue' },
  finished: { label: 'Finished', color: 'teal' },
  draft: { label: 'Unsaved', color: 'orange' },
};

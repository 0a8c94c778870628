/** What each Scheduled Emails action asks before it acts (the table's dialog and the linked pages). */
export type TScheduledAction = 'cancel' | 'removeCancel' | 'delete';

export const SCHEDULED_ACTIONS = {
  cancel: {
    page: 'Cancel Scheduled Email',
    title: 'Cancel this email?',
    text: 'It will not go out. You can remove the cancel later.',
    button: 'Cancel email',
  },
  removeCancel: {
    page: 'Remove Cancel',
    title: 'Schedule it again?',
    text: 'It goes out at its delivery time.',
    button: 'Remove cancel',
  },
  delete: {
    page: 'Delete Scheduled Email',
    title: 'Delete this email?',
    text: 'It disappears from your scheduled emails and history.',
    button: 'Delete',
  },
} as const;

/** Spec §4: 0 pending may be cancelled; 2 cancelled may have the cancel removed; delete is always offered. */
export const isActionAllowed = (action: TScheduledAction, status: 0 | 1 | 2) =>
  action === 'delete' || (action === 'cancel' ? status === 0 : status === 2);

export const STATUS_LABELS = { 0: 'Pending', 1: 'Sent', 2: 'Cancelled' } as const;

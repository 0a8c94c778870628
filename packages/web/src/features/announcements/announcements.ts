import { ANNOUNCEMENT_STORAGE_KEY, routeUrl, shouldShowAnnouncement, supportApi } from '@sendwell/contracts';
import { useQuery } from '@tanstack/react-query';
import { createContext, useContext } from 'react';
import { callRoute } from '../../app/api';

export const ANNOUNCEMENT_URL = routeUrl(supportApi.announcement);
export const announcementKey = ['announcement', 'current'] as const;

export const useCurrentAnnouncement = () =>
  useQuery({
    queryKey: announcementKey,
    queryFn: async ({ signal }) => (await callRoute(supportApi.announcement, { signal })).data,
    meta: { reportErrors: false },
  });

type TDismissed = { id: number; at: number };

/** The last dismissal, stored in this browser (spec §4). */
export const readDismissed = (): TDismissed | null => {
  try {
    const value = JSON.parse(localStorage.getItem(ANNOUNCEMENT_STORAGE_KEY) ?? 'null') as TDismissed | null;
    return value && typeof value.id === 'number' && typeof value.at === 'number' ? value : null;
  } catch {
    return null;
  }
};

export const writeDismissed = (id: number, now = Date.now()) =>
  localStorage.setItem(ANNOUNCEMENT_STORAGE_KEY, JSON.stringify({ id, at: now }));

export const isDue = (id: number, now = Date.now()) => shouldShowAnnouncement(id, readDismissed(), now);

/** Lets the navigation link reopen the modal. */
export const AnnouncementContext = createContext<{ open: () => void; hasAnnouncement: boolean }>({
  open: () => {},
  hasAnnouncement: false,
});
export const useAnnouncement = () => useContext(AnnouncementContext);

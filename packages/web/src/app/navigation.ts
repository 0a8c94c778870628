import {
  IconAddressBook,
  IconBan,
  IconBell,
  IconCalendarTime,
  IconCoins,
  IconCreditCard,
  IconFlame,
  IconHistory,
  IconInbox,
  IconKey,
  IconLayoutDashboard,
  IconLifebuoy,
  IconMailCheck,
  IconRoute,
  IconSend,
  IconServer,
  IconSettings,
  IconShieldLock,
  IconTool,
  IconWebhook,
  type TablerIcon,
} from '@tabler/icons-react';

export type TNavigationLink = {
  label: string;
  path: string;
  icon: TablerIcon;
  /** Shown only once the screen exists; each issue that builds a screen flips its flag and adds the route. */
  available: boolean;
  /** Shown only to operators (the operator area); the server answers 404 to anyone else anyway. */
  operatorOnly?: boolean;
  /** Plans and credits: hidden on a single-company install (`BILLING=off`). */
  billingOnly?: boolean;
};

export type TNavigationGroup = {
  label: string;
  icon: TablerIcon;
  children: TNavigationLink[];
};

export type TNavigationEntry = TNavigationLink | TNavigationGroup;

/** The whole product's navigation, in the order the navbar shows it. */
export const navigation: TNavigationEntry[] = [
  { label: 'Dashboard', path: '/', icon: IconLayoutDashboard, available: true },
  { label: 'Send Email', path: '/send-email', icon: IconSend, available: true },
  { label: 'Scheduled Emails', path: '/scheduled-mails', icon: IconCalendarTime, available: true },
  { label: 'History', path: '/history', icon: IconHistory, available: true },
  { label: 'Drip Campaigns', path: '/campaigns', icon: IconRoute, available: true },
  { label: 'Mailing Lists', path: '/mailing-lists', icon: IconAddressBook, available: true },
  { label: 'Suppression', path: '/suppression', icon: IconBan, available: true },
  {
    label: 'Tools',
    icon: IconTool,
    children: [
      { label: 'Spam Test', path: '/tools/mail-testing', icon: IconFlame, available: true },
      { label: 'Email Verification', path: '/tools/email-verification', icon: IconMailCheck, available: true },
    ],
  },
  {
    label: 'Settings',
    icon: IconSettings,
    children: [
      { label: 'Sending Accounts', path: '/settings/accounts', icon: IconServer, available: true },
      { label: 'Test Inbox', path: '/test-inbox', icon: IconInbox, available: true },
      {
        label: 'Subscription',
        path: '/settings/subscription',
        icon: IconCreditCard,
        available: true,
        billingOnly: true,
      },
      { label: 'API Keys', path: '/settings/api-keys', icon: IconKey, available: true },
      { label: 'Webhooks', path: '/settings/webhooks', icon: IconWebhook, available: true },
    ],
  },
  { label: 'Credit Log', path: '/credit-log', icon: IconCoins, available: true, billingOnly: true },
  { label: 'Support', path: '/support', icon: IconLifebuoy, available: true },
  { label: 'Notifications', path: '/notifications', icon: IconBell, available: true },
  { label: 'Operator', path: '/operator', icon: IconShieldLock, available: true, operatorOnly: true },
];

export const isNavigationGroup = (entry: TNavigationEntry): entry is TNavigationGroup => 'children' in entry;

/** What the navbar shows: available links (operator links to operators only), and groups that still have one. */
export const visibleNavigation = (
  entries: TNavigationEntry[] = navigation,
  role: 'user' | 'operator' = 'user',
  { billing = true }: { billing?: boolean } = {},
): TNavigationEntry[] => {
  const isShown = (link: TNavigationLink) =>
    link.available && (!link.operatorOnly || role === 'operator') && (!link.billingOnly || billing);
  return entries.flatMap((entry): TNavigationEntry[] => {
    if (!isNavigationGroup(entry)) return isShown(entry) ? [entry] : [];
    const children = entry.children.filter(isShown);
    return children.length > 0 ? [{ ...entry, children }] : [];
  });
};

/** A link by its path, wherever it sits in the tree. */
export const findNavigationLink = (path: string, entries: TNavigationEntry[] = navigation): TNavigationLink | null => {
  for (const entry of entries) {
    const links = isNavigationGroup(entry) ? entry.children : [entry];
    const link = links.find((candidate) => candidate.path === path);
    if (link) return link;
  }
  return null;
};

import { Center, Loader } from '@mantine/core';
import { createBrowserRouter, Outlet, type RouteObject } from 'react-router';
import { RequireGuest, RequireUser } from './guards';
import { AppLayout } from './shell/AppLayout';
import { NotFoundPage } from './shell/NotFoundPage';
import { RouteError } from './shell/RouteError';

const PageLoading = () => (
  <Center h="100vh">
    <Loader aria-label="Loading" />
  </Center>
);

/**
 * Screens live at the spec's paths. A new screen adds its route here and flips its `available`
 * flag in navigation.ts. Screens load on first visit, so the first page does not wait for all of them.
 */
export const routes: RouteObject[] = [
  {
    errorElement: <RouteError />,
    hydrateFallbackElement: <PageLoading />,
    children: [
      {
        element: (
          <RequireGuest>
            <Outlet />
          </RequireGuest>
        ),
        children: [
          {
            path: '/login',
            lazy: async () => ({ Component: (await import('../features/auth/LoginPage')).LoginPage }),
          },
          {
            path: '/register',
            lazy: async () => ({ Component: (await import('../features/registration/RegisterPage')).RegisterPage }),
          },
        ],
      },
      {
        // Visitors and signed-in users alike.
        path: '/contact-us',
        lazy: async () => ({ Component: (await import('../features/contact/ContactPage')).ContactPage }),
      },
      {
        path: '/forgot-password',
        lazy: async () => ({ Component: (await import('../features/auth/ForgotPasswordPage')).ForgotPasswordPage }),
      },
      {
        // The link mailed to a new email: signed in or not, the token says whose it is.
        path: '/settings/profile/confirm-email/:token',
        lazy: async () => ({ Component: (await import('../features/profile/ConfirmEmailPage')).ConfirmEmailPage }),
      },
      {
        // The link mailed to the old address: undoes a change of email without the password (R41).
        path: '/settings/profile/undo-email/:token',
        lazy: async () => ({
          Component: (await import('../features/profile/UndoEmailChangePage')).UndoEmailChangePage,
        }),
      },
      {
        path: '/reset-password/:token',
        lazy: async () => ({ Component: (await import('../features/auth/ResetPasswordPage')).ResetPasswordPage }),
      },
      {
        element: (
          <RequireUser>
            <AppLayout />
          </RequireUser>
        ),
        children: [
          {
            errorElement: <RouteError />,
            children: [
              {
                index: true,
                lazy: async () => ({ Component: (await import('../features/home/HomePage')).HomePage }),
              },
              {
                path: 'credit-log',
                lazy: async () => ({ Component: (await import('../features/credits/CreditLogPage')).CreditLogPage }),
              },
              {
                path: 'settings/profile',
                lazy: async () => ({ Component: (await import('../features/profile/ProfilePage')).ProfilePage }),
              },
              {
                path: 'settings/subscription',
                lazy: async () => ({
                  Component: (await import('../features/billing/SubscriptionPage')).SubscriptionPage,
                }),
              },
              {
                path: 'settings/api-keys',
                lazy: async () => ({ Component: (await import('../features/integrations/ApiKeysPage')).ApiKeysPage }),
              },
              {
                path: 'settings/webhooks',
                lazy: async () => ({ Component: (await import('../features/integrations/WebhooksPage')).WebhooksPage }),
              },
              {
                path: 'settings/accounts',
                lazy: async () => ({ Component: (await import('../features/accounts/AccountsPage')).AccountsPage }),
              },
              {
                path: 'send-email',
                lazy: async () => ({
                  Component: (await import('../features/send-email/SendEmailPage')).SendEmailPage,
                }),
              },
              {
                path: 'mailing-lists',
                lazy: async () => ({
                  Component: (await import('../features/lists/MailingListsPage')).MailingListsPage,
                }),
              },
              {
                path: 'mailing-lists/detail/:accountId/:listId',
                lazy: async () => ({ Component: (await import('../features/lists/MembersPage')).MembersPage }),
              },
              {
                path: 'mailing-lists/signup-form/:listId',
                lazy: async () => ({ Component: (await import('../features/lists/SignupFormPage')).SignupFormPage }),
              },
              {
                path: 'campaigns',
                lazy: async () => ({ Component: (await import('../features/campaigns/CampaignsPage')).CampaignsPage }),
              },
              {
                path: 'campaigns/new',
                lazy: async () => ({
                  Component: (await import('../features/campaigns/CampaignWizardPage')).CampaignWizardPage,
                }),
              },
              {
                path: 'campaigns/continue/:id',
                lazy: async () => ({
                  Component: (await import('../features/campaigns/CampaignWizardPage')).CampaignWizardPage,
                }),
              },
              {
                path: 'campaigns/detail/:id/:tab?',
                lazy: async () => ({ Component: (await import('../features/campaigns/CampaignPage')).CampaignPage }),
              },
              // The spec's linked paths of a campaign's pages, aliases of the tabs above.
              {
                path: 'campaigns/detail/:id/campaign-view/:tab',
                lazy: async () => ({ Component: (await import('../features/campaigns/CampaignPage')).CampaignPage }),
              },
              {
                path: 'drip-campaign/campaign/:id/detail',
                lazy: async () => ({ Component: (await import('../features/campaigns/CampaignPage')).CampaignPage }),
              },
              {
                path: 'drip-campaign/campaign/:id/members',
                lazy: async () => ({
                  Component: (await import('../features/campaigns/MembersListPage')).MembersListPage,
                }),
              },
              {
                path: 'tools/mail-testing',
                lazy: async () => ({ Component: (await import('../features/spam-test/SpamTestPage')).SpamTestPage }),
              },
              {
                path: 'tools/mail-testing/history',
                lazy: async () => ({
                  Component: (await import('../features/spam-test/SpamTestHistoryPage')).SpamTestHistoryPage,
                }),
              },
              {
                path: 'tools/mail-testing/history/result/:id',
                lazy: async () => ({
                  Component: (await import('../features/spam-test/SpamTestResultPage')).SpamTestResultPage,
                }),
              },
              {
                path: 'test-inbox',
                lazy: async () => ({ Component: (await import('../features/test-inbox/TestInboxPage')).TestInboxPage }),
              },
              {
                path: 'notifications',
                lazy: async () => ({
                  Component: (await import('../features/notifications/NotificationsPage')).NotificationsPage,
                }),
              },
              {
                path: 'history/edit-email/:editId',
                lazy: async () => ({
                  Component: (await import('../features/send-email/SendEmailPage')).SendEmailPage,
                }),
              },
              {
                path: 'history',
                lazy: async () => ({ Component: (await import('../features/history/HistoryPage')).HistoryPage }),
              },
              {
                path: 'history/details/:accountId/:id',
                lazy: async () => ({
                  Component: (await import('../features/history/HistoryDetailsPage')).HistoryDetailsPage,
                }),
              },
              {
                path: 'scheduled-mails/edit/:id',
                lazy: async () => ({
                  Component: (await import('../features/history/ScheduledEditPage')).ScheduledEditPage,
                }),
              },
              {
                path: 'scheduled-mails',
                lazy: async () => ({ Component: (await import('../features/history/ScheduledPage')).ScheduledPage }),
              },
              // The spec's linked paths of the row actions, as pages: a confirm, then the action.
              {
                path: 'scheduled-mails/cancel/:id',
                lazy: async () => ({
                  Component: (await import('../features/history/ScheduledActionPage')).ScheduledCancelPage,
                }),
              },
              {
                path: 'scheduled-mails/cancel/:id/remove-cancel',
                lazy: async () => ({
                  Component: (await import('../features/history/ScheduledActionPage')).ScheduledRemoveCancelPage,
                }),
              },
              {
                path: 'scheduled-mails/delete/:id',
                lazy: async () => ({
                  Component: (await import('../features/history/ScheduledActionPage')).ScheduledDeletePage,
                }),
              },
              {
                path: 'tools/email-verification',
                lazy: async () => ({
                  Component: (await import('../features/verification/VerificationPage')).VerificationPage,
                }),
              },
              {
                path: 'suppression',
                lazy: async () => ({
                  Component: (await import('../features/suppression/SuppressionPage')).SuppressionPage,
                }),
              },
              {
                path: 'support',
                lazy: async () => ({ Component: (await import('../features/support/SupportPage')).SupportPage }),
              },
              {
                path: 'operator/:tab?',
                lazy: async () => ({ Component: (await import('../features/operator/OperatorPage')).OperatorPage }),
              },
              { path: '*', element: <NotFoundPage /> },
            ],
          },
        ],
      },
    ],
  },
];

export const createRouter = () => createBrowserRouter(routes);

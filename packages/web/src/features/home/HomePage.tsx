import { Badge, Button, Card, Group, SimpleGrid, Text, ThemeIcon, Title } from '@mantine/core';
import type { TablerIcon } from '@tabler/icons-react';
import { Link } from 'react-router';
import { findNavigationLink } from '../../app/navigation';
import { useSignedInUser } from '../../app/session';
import { PageHeader } from '../../components/PageHeader';
import { DeliveryDashboard } from './DeliveryDashboard';

type TStep = { path: string; title: string; text: string; action: string };

/**
 * The first things a new user does, in order. Each card links to its screen once that screen
 * exists (its navigation entry is available) and says plainly that it is not there yet otherwise.
 */
const steps: TStep[] = [
  {
    path: '/settings/accounts',
    title: 'Connect a sending account',
    text: 'Send through Mailgun, any SMTP server or a Gmail account you own.',
    action: 'Add an account',
  },
  {
    path: '/mailing-lists',
    title: 'Build a mailing list',
    text: 'Import members from a CSV file or add them one by one.',
    action: 'Open mailing lists',
  },
  {
    path: '/send-email',
    title: 'Send your first email',
    text: 'Write a message and send it now, or schedule it for later.',
    action: 'Write an email',
  },
  {
    path: '/tools/email-verification',
    title: 'Verify addresses',
    text: 'Check addresses before you send, to keep bounces and spam scores down.',
    action: 'Verify emails',
  },
  {
    path: '/credit-log',
    title: 'Keep track of your credits',
    text: 'Verifications and spam tests are paid in credits; the credit log lists every change to your balance.',
    action: 'Open the credit log',
  },
  {
    path: '/notifications',
    title: 'Keep up with notifications',
    text: 'Sendwell tells you here when imports, sends and verifications finish.',
    action: 'View notifications',
  },
];

const StepCard = ({ step, icon: Icon, isAvailable }: { step: TStep; icon: TablerIcon; isAvailable: boolean }) => (
  <Card withBorder padding="lg">
    <Group justify="space-between" align="flex-start" mb="sm">
      <ThemeIcon size={36} variant="light" color={isAvailable ? undefined : 'gray'} aria-hidden>
        <Icon size={20} stroke={1.6} />
      </ThemeIcon>
      {!isAvailable && (
        <Badge color="gray" variant="light">
          Not available yet
        </Badge>
      )}
    </Group>
    <Title order={3} fz="md" mb={4}>
      {step.title}
    </Title>
    <Text size="sm" c="dimmed" mb="md" style={{ flexGrow: 1 }}>
      {step.text}
    </Text>
    {isAvailable && (
      <Button component={Link} to={step.path} variant="light" size="xs" w="fit-content">
        {step.action}
      </Button>
    )}
  </Card>
);

export const HomePage = () => {
  const user = useSignedInUser();
  return (
    <>
      <PageHeader
        title={`Welcome, ${user.name}`}
        description="Your delivery over the last 30 days, and how to get going."
      />
      <DeliveryDashboard />
      <Title order={2} fz="lg" mb="sm">
        Getting started
      </Title>
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
        {steps.map((step) => {
          const link = findNavigationLink(step.path);
          // Credits are nowhere on a single-company install (`BILLING=off`).
          if (!link || (link.billingOnly && !user.billing)) return null;
          return <StepCard key={step.path} step={step} icon={link.icon} isAvailable={link.available} />;
        })}
      </SimpleGrid>
    </>
  );
};

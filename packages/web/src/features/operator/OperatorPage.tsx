import { Paper, Tabs } from '@mantine/core';
import { useNavigate, useParams } from 'react-router';
import { useSignedInUser } from '../../app/session';
import { NotFoundPage } from '../../app/shell/NotFoundPage';
import { PageHeader } from '../../components/PageHeader';
import { AnnouncementsTab } from './AnnouncementsTab';
import { AuditTab } from './AuditTab';
import { PlansTab } from './PlansTab';
import { SystemTab } from './SystemTab';
import { TicketsTab } from './TicketsTab';
import { UsersTab } from './UsersTab';

const TABS = [
  { value: 'users', label: 'Users', Panel: UsersTab },
  { value: 'plans', label: 'Plans', Panel: PlansTab },
  { value: 'tickets', label: 'Tickets', Panel: TicketsTab },
  { value: 'announcements', label: 'Announcements', Panel: AnnouncementsTab },
  { value: 'system', label: 'System', Panel: SystemTab },
  { value: 'audit', label: 'Audit log', Panel: AuditTab },
] as const;

/** The operator area (operators only; the server answers 404 to anyone else). One tab per concern, in the URL. */
export const OperatorPage = () => {
  const user = useSignedInUser();
  const navigate = useNavigate();
  const { tab } = useParams();
  if (user.role !== 'operator') return <NotFoundPage />;
  const current = TABS.find((item) => item.value === tab) ?? TABS[0];
  return (
    <>
      <PageHeader title="Operator" description="Users, plans, support, announcements and the system, for operators." />
      <Paper withBorder p="md">
        <Tabs value={current.value} onChange={(value) => value && navigate(`/operator/${value}`)} keepMounted={false}>
          <Tabs.List mb="md">
            {TABS.map((item) => (
              <Tabs.Tab key={item.value} value={item.value}>
                {item.label}
              </Tabs.Tab>
            ))}
          </Tabs.List>
          {TABS.map((item) => (
            <Tabs.Panel key={item.value} value={item.value}>
              <item.Panel />
            </Tabs.Panel>
          ))}
        </Tabs>
      </Paper>
    </>
  );
};

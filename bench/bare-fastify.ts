/**
 * The reference for B7 and B8: bare Fastify answering a page of 20 rows of the same shape
 * as /api/notifications from memory (no session, no database, no schema work), and taking
 * a posted JSON body (B8's signed webhook events) and answering at once (no HMAC, no
 * database).
 */
import Fastify from 'fastify';

const rows = Array.from({ length: 20 }, (_, index) => ({
  id: index + 1,
  title: `Report ${index + 1}`,
  body: 'all fine',
  link: null,
  read_at: null,
  created_at: new Date(Date.UTC(2026, 0, 1, 0, index)).toISOString(),
}));
const page = {
  data: rows,
  meta: { current_page: 2, last_page: 50, from: 21, to: 40, total: 1000, per_page: 20 },
  unread: 1000,
};

const app = Fastify();
app.get('/api/notifications', async () => page);
app.post('/hook', async () => ({ status: true, message: 'ok' }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
console.log('bare fastify listening');

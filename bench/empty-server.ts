/**
 * The first ceiling of `npm run bench`: Fastify answering an empty JSON object, in a process of its own,
 * the same way the gateway runs. Nothing the gateway does per request can be faster than this.
 */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/empty', async () => ({}));
app.post('/empty', async () => ({}));
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
if (address === null || typeof address === 'string') throw new Error('no address');
console.log(`listening on http://127.0.0.1:${address.port}`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));

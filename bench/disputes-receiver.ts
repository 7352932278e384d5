/**
 * The merchant's webhook receiver of the dispute bench (bench/disputes-webhooks.ts), in a process of its
 * own: plain node:http, keep-alive, answers every POST with 200 and notes when each event type first
 * arrived for each charge (epoch milliseconds, from the body's `eventType` and `data.chargeId`).
 * `GET /arrivals` returns `{ arrivals: { "<event type> <charge id>": <ms>, … }, posts: <count> }`.
 */
import http from 'node:http';

const arrivals = new Map<string, number>();
let posts = 0;
const server = http.createServer((req, res) => {
  if (req.method === 'GET') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ arrivals: Object.fromEntries(arrivals), posts }));
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const at = performance.timeOrigin + performance.now();
    posts++;
    try {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        eventType?: unknown;
        data?: { chargeId?: unknown };
      };
      const key = `${String(event.eventType)} ${String(event.data?.chargeId)}`;
      if (!arrivals.has(key)) arrivals.set(key, at);
    } catch {
      // Not an event: nothing to note.
    }
    res.end('ok');
  });
});
server.keepAliveTimeout = 5000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  console.log(`listening on http://127.0.0.1:${address.port}`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});

/**
 * The webhook receiver of `npm run bench` (bench/webhooks.ts), in a process of its own: plain node:http,
 * keep-alive, answers every POST with 200 `ok` and notes when each event first arrived at each path (epoch
 * milliseconds). `GET /arrivals` returns them (`{ "<path> <event id>": <ms>, … }`); `DELETE /arrivals`
 * forgets them.
 */
import http from 'node:http';

const arrivals = new Map<string, number>();
const server = http.createServer((req, res) => {
  if (req.method === 'GET') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(Object.fromEntries(arrivals)));
    return;
  }
  if (req.method === 'DELETE') {
    arrivals.clear();
    res.end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const at = performance.timeOrigin + performance.now();
    try {
      const id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown }).id;
      const key = `${req.url ?? ''} ${String(id)}`;
      if (typeof id === 'string' && !arrivals.has(key)) arrivals.set(key, at);
    } catch {
      // The ceiling's load sends the same body each time; only deliveries are noted.
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

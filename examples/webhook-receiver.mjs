// A webhook receiver (docs/events.md, "Webhooks"): checks each POST's Standard Webhooks signature with the secret the gateway
// signs with, then prints the change. Run: WEBHOOK_SECRET=whsec_… node examples/webhook-receiver.mjs (port 4000).
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

const hook = new Webhook(process.env.WEBHOOK_SECRET);
const seen = new Set(); // deliveries are at least once: a repeat carries the same webhook-id

createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8').on('data', (chunk) => (body += chunk)).on('end', () => {
    let change;
    try {
      change = hook.verify(body, req.headers); // the raw body, as sent; throws on a bad signature or an old timestamp
    } catch {
      return res.writeHead(401).end();
    }
    if (!seen.has(change.id)) {
      seen.add(change.id);
      console.log(change.type, change.key, change.etag, JSON.stringify(change.data));
    }
    res.writeHead(204).end(); // any 2xx: delivered; anything else is retried
  });
}).listen(Number(process.env.PORT ?? 4000));

// Drives docs/clients.md's Apollo Client module (extracted from the page by
// tests/e2e/test_clients_doc_apollo.py) against a real server, under Node.
//
//   node clients_apollo.mjs <module path> <http-url> <department> <token> <other member's token>
//
// Reads the department's queue in pages of 2 (merged by relayStylePagination), follows
// its events from the first page's eventCursor, starts the first task and waits for its
// event, starts it again, then has the other member start it. Prints one JSON line:
// {queue, event, started, again, refused, requests}, each HTTP request's {method,
// operationName, hash, query: whether the text went}. Anything else (an error) is reported on stderr with exit code 1.
import { pathToFileURL } from 'node:url';
import WebSocket from 'ws';

const [modulePath, url, department, token, otherToken] = process.argv.slice(2);
if (!modulePath || !url || !department || !token || !otherToken) {
  process.stderr.write('usage: node clients_apollo.mjs <module> <http-url> <department> <token> <token>\n');
  process.exit(2);
}

const requests = [];
const send = globalThis.fetch;
// Notes what each request carries, then sends it.
globalThis.fetch = async (input, init) => {
  const address = new URL(typeof input === 'string' ? input : input.url);
  const body = init && init.body ? JSON.parse(init.body) : null;
  const extensions = body ? body.extensions : JSON.parse(address.searchParams.get('extensions') || 'null');
  requests.push({
    method: (init && init.method) || 'GET',
    operationName: body ? body.operationName : address.searchParams.get('operationName'),
    hash: extensions && extensions.persistedQuery ? extensions.persistedQuery.sha256Hash : null,
    query: Boolean(body ? body.query : address.searchParams.get('query')),
  });
  return send(input, init);
};

const { makeClient, readQueue, followQueue, startTask } = await import(pathToFileURL(modulePath).href);

try {
  const client = makeClient({ url, token, webSocketImpl: WebSocket });
  const first = await readQueue(client, department, { first: 2 });
  const queue = await readQueue(client, department, { first: 2, after: first.pageInfo.endCursor });
  const taskId = queue.edges[0].node.id;

  // From the snapshot's eventCursor: the start's event comes whenever the socket opens.
  const arrived = new Promise((resolve, reject) => {
    const following = followQueue(client, department, first.eventCursor, (found, error) => {
      if (error) reject(error);
      else if (found.task.id === taskId) {
        following.unsubscribe();
        resolve(found);
      }
    });
  });
  const started = await startTask(client, taskId);
  const event = await arrived;
  const again = await startTask(client, taskId);
  const other = makeClient({ url, token: otherToken, webSocketImpl: WebSocket });
  const refused = await startTask(other, taskId);
  process.stdout.write(JSON.stringify({ queue, event, started, again, refused, requests }) + '\n');
  process.exit(0);
} catch (error) {
  process.stderr.write(JSON.stringify({ message: String(error && error.message), requests }) + '\n');
  process.exit(1);
}

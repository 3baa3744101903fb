// The reference JavaScript client (npm `graphql-ws`, graphql-transport-ws protocol) under Node.
//
//   node subscribe.mjs <ws-url> <token> <department> <after-cursor> <count>
//
// Subscribes to queueEvents(department:, after:), prints each event as one JSON line on
// stdout and exits 0 after <count> events. Anything else (an error, a close, the stream
// completing early) is reported as JSON on stderr with exit code 1.
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

const [url, token, department, after, countArg] = process.argv.slice(2);
const count = Number(countArg);
if (!url || !token || !department || !after || !Number.isInteger(count) || count < 1) {
  process.stderr.write('usage: node subscribe.mjs <ws-url> <token> <department> <after> <count>\n');
  process.exit(2);
}

const query = `subscription($department: String!, $after: String) {
  queueEvents(department: $department, after: $after) {
    cursor kind occurredAt task { id status pickedUpBy { name } }
  }
}`;

const client = createClient({
  url,
  webSocketImpl: WebSocket,
  connectionParams: { authorization: `Bearer ${token}` },
  retryAttempts: 0,
});

function describe(error) {
  if (error instanceof Error) return { message: error.message };
  if (Array.isArray(error)) return { errors: error };
  if (error && typeof error.code === 'number') return { code: error.code, reason: error.reason };
  return { error: String(error) };
}

let received = 0;
let done = false;
function finish(failure) {
  if (done) return;
  done = true;
  if (failure !== undefined) {
    process.stderr.write(JSON.stringify({ received, ...failure }) + '\n');
    process.exitCode = 1;
  }
  unsubscribe();
  // Closes the socket; with nothing left to do, Node then exits by itself.
  client.dispose();
}

const unsubscribe = client.subscribe(
  { query, variables: { department, after } },
  {
    next(result) {
      if (done) return;
      if (result.errors) {
        finish(describe(result.errors));
        return;
      }
      process.stdout.write(JSON.stringify(result.data.queueEvents) + '\n');
      received += 1;
      if (received === count) finish();
    },
    error(error) {
      finish(describe(error));
    },
    complete() {
      finish({ message: 'the server completed the subscription early' });
    },
  },
);

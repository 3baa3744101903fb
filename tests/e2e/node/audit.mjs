// The GraphQL over HTTP specification's own server audit (npm `graphql-http`) under Node.
//
//   node audit.mjs <http-url>
//
// Runs every audit of serverAudits() against the server, one after another, and prints
// their results as one JSON array on stdout: { id, name, status, reason } each, where
// status is "ok", "notice", "warn" (a SHOULD not met) or "error" (a MUST not met).
// An audit that throws (a fatal failure, e.g. the server is unreachable) exits 1.
import { serverAudits } from 'graphql-http';

const [url] = process.argv.slice(2);
if (!url) {
  process.stderr.write('usage: node audit.mjs <http-url>\n');
  process.exit(2);
}

const results = [];
for (const audit of serverAudits({ url, fetchFn: fetch })) {
  const result = await audit.fn();
  results.push({
    id: result.id,
    name: result.name,
    status: result.status,
    reason: result.status === 'ok' ? null : result.reason,
  });
}
process.stdout.write(`${JSON.stringify(results)}\n`);

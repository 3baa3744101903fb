// Apollo Client (npm `@apollo/client`) with BatchHttpLink under Node, for
// tests/e2e/test_node_apollo_batch.py.
//
//   node batch.mjs <http-url> <token> <operations> <accept or "">
//
// Sends <operations> queries at once through BatchHttpLink (one request, a JSON array),
// with Apollo's default Accept or the one given, then prints one JSON line on stdout: for
// each operation, what Apollo reported (data, or the error's class, message, statusCode
// and the body it carries).
import { ApolloClient, InMemoryCache, gql } from '@apollo/client';
import { BatchHttpLink } from '@apollo/client/link/batch-http';

const [url, token, count, accept] = process.argv.slice(2);
const operations = Number(count);
if (!url || !token || !(operations > 0) || accept === undefined) {
  process.stderr.write('usage: node batch.mjs <http-url> <token> <operations> <accept or "">\n');
  process.exit(2);
}

const headers = { authorization: `Bearer ${token}` };
if (accept) headers.accept = accept;
const link = new BatchHttpLink({ uri: url, headers, batchMax: operations, batchInterval: 50 });
const client = new ApolloClient({ link, cache: new InMemoryCache() });

function reported(error) {
  return {
    error: error.constructor.name,
    message: String(error.message),
    statusCode: error.statusCode ?? null,
    errors: (error.errors || []).map((e) => e.message),
    body: error.bodyText ?? (error.result ? JSON.stringify(error.result) : null),
  };
}

const outcomes = await Promise.all(
  Array.from({ length: operations }, (_, i) =>
    client
      .query({ query: gql(`query Me${i} { me { name } }`), fetchPolicy: 'no-cache' })
      .then(({ data, error }) => (error ? reported(error) : { data }))
      .catch(reported),
  ),
);
process.stdout.write(JSON.stringify(outcomes) + '\n');

// Apollo Client (npm `@apollo/client`) with its persisted-queries link under Node, for
// tests/e2e/test_node_apollo.py.
//
//   node apollo.mjs <http-url> <token or ""> <GET|POST> <document>
//
// Runs <document> three times (no cache) through the persisted-queries link (SHA-256 from
// node:crypto; the hash alone by GET when asked, as useGETForHashedQueries does) and
// Apollo's HttpLink, then prints one JSON line on stdout: {results, requests}, each result's
// data and every request the link sent ({method, hash, query: whether the text went}).
// Anything else (an error) is reported as JSON on stderr with exit code 1.
import { createHash } from 'node:crypto';
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';

const [url, token, method, document] = process.argv.slice(2);
if (!url || token === undefined || !['GET', 'POST'].includes(method) || !document) {
  process.stderr.write('usage: node apollo.mjs <http-url> <token or ""> <GET|POST> <document>\n');
  process.exit(2);
}

const requests = [];

// Notes what each request carries, then sends it.
async function noting(input, init) {
  const address = new URL(typeof input === 'string' ? input : input.url);
  const body = init.body ? JSON.parse(init.body) : null;
  const extensions = body ? body.extensions : JSON.parse(address.searchParams.get('extensions') || 'null');
  requests.push({
    method: init.method || 'GET',
    hash: extensions && extensions.persistedQuery ? extensions.persistedQuery.sha256Hash : null,
    query: Boolean(body ? body.query : address.searchParams.get('query')),
  });
  return fetch(input, init);
}

const link = new PersistedQueryLink({
  sha256: (text) => createHash('sha256').update(text).digest('hex'),
  useGETForHashedQueries: method === 'GET',
}).concat(
  new HttpLink({
    uri: url,
    fetch: noting,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  }),
);
const client = new ApolloClient({ link, cache: new InMemoryCache() });

try {
  const results = [];
  for (let i = 0; i < 3; i += 1) {
    const { data, error } = await client.query({ query: gql(document), fetchPolicy: 'no-cache' });
    if (error) throw error;
    results.push(data);
  }
  process.stdout.write(JSON.stringify({ results, requests }) + '\n');
} catch (error) {
  process.stderr.write(JSON.stringify({ message: String(error && error.message), requests }) + '\n');
  process.exit(1);
}

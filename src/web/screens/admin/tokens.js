// Admin: tokens (create wall display and API tokens, list and revoke any token, the
// session of this browser marked).
import { gql } from "../../lib/graphql.js";
import { html, useState } from "../../lib/html.js";
import { session } from "../../lib/session.js";
import { ShowMore, request } from "../../lib/data.js";
import { Field, FormErrors, errorsFor } from "../../lib/forms.js";
import { ErrorMessage, Loading, messageOf } from "../../lib/messages.js";
import { Dialog, Time, inputInstant } from "../../lib/ui.js";
import { DepartmentChecks, useList } from "./parts.js";

export const ADMIN_TOKENS = gql`
  query AdminTokens($after: String) {
    tokens(first: 50, after: $after) {
      pageInfo { hasNextPage endCursor }
      edges {
        node {
          id kind name createdAt expiresAt expired revokedAt
          user { name }
          departments { code name }
        }
      }
    }
    departments { code name kind hasQueue }
  }
`;

export const CREATE_API_TOKEN = gql`
  mutation CreateApiToken($input: CreateApiTokenInput!) {
    createApiToken(input: $input) {
      secret
      token { id name expiresAt }
      userErrors { code field message }
    }
  }
`;

export const CREATE_DISPLAY_TOKEN = gql`
  mutation CreateDisplayToken($input: CreateDisplayTokenInput!) {
    createDisplayToken(input: $input) {
      secret
      token { id name expiresAt departments { code name } }
      userErrors { code field message }
    }
  }
`;

export const REVOKE_TOKEN = gql`
  mutation RevokeToken($input: RevokeTokenInput!) {
    revokeToken(input: $input) {
      token { id revokedAt }
      userErrors { code message }
    }
  }
`;

function displayLink(code, secret) {
  return `/display/${encodeURIComponent(code)}?token=${encodeURIComponent(secret)}`;
}

// The two kinds of token made here, each a name and an expiry plus one more input (the
// display's queues, the API token's maker's password: `extraField`), and what each says
// with the secret.
const DISPLAY_TOKEN = {
  id: "new-token",
  heading: "New wall display token",
  nameLabel: "Token name",
  nameHint: "Where it hangs, e.g. Print room wall",
  expiresLabel: "Display token expires (optional)",
  expiresHint: "Your local time; empty: it never expires",
  submit: "Create display token",
  mutation: CREATE_DISPLAY_TOKEN,
  field: "createDisplayToken",
  extraField: "departmentCodes",
  empty: [],
  Extra: ({ value, onChange, error, departments }) => html`
    <${DepartmentChecks} legend="Queues it may show" departments=${departments} chosen=${value} onChange=${onChange}
      error=${error} />`,
  Made: ({ created }) => html`<ul>${created.token.departments.map((d) => html`<li key=${d.code}>
    <a href=${displayLink(d.code, created.secret)} target="_blank" rel="noopener noreferrer">
      Open the ${d.name} wall display</a></li>`)}</ul>`,
};

const API_TOKEN = {
  id: "new-api-token",
  heading: "New API token",
  intro: "It acts as you, with your rights, for a program that calls the API.",
  nameLabel: "Name of the API token",
  nameHint: "What uses it, e.g. Web shop orders",
  expiresLabel: "API token expires (optional)",
  expiresHint: "Your local time; empty: in 90 days",
  submit: "Create API token",
  mutation: CREATE_API_TOKEN,
  field: "createApiToken",
  extraField: "password",
  empty: "",
  // The password is not kept past the request, whatever its answer.
  forgetsExtra: true,
  Extra: ({ value, onChange, error }) => html`<${Field} label="Your password" type="password"
    value=${value} onInput=${onChange} required=${true} autocomplete="current-password"
    hint="Asked again: a token acts as you" error=${error} />`,
  Made: () => html`<p>Send it as <code>Authorization: Bearer</code> followed by the secret.</p>`,
};

function CreateToken({ kind, departments, onCreated }) {
  const [name, setName] = useState("");
  const [expires, setExpires] = useState("");
  const [extra, setExtra] = useState(kind.empty);
  const [errors, setErrors] = useState([]);
  const [failure, setFailure] = useState(null);
  const [created, setCreated] = useState(null);

  async function submit(event) {
    event.preventDefault();
    setErrors([]);
    setFailure(null);
    try {
      const { [kind.field]: result } = await request(kind.mutation, {
        input: { name: name.trim(), [kind.extraField]: extra, expiresAt: expires ? inputInstant(expires) : null },
      });
      if (kind.forgetsExtra) setExtra(kind.empty);
      if (result.userErrors.length) {
        setErrors(result.userErrors);
        return;
      }
      setCreated(result);
      setName("");
      setExpires("");
      setExtra(kind.empty);
      onCreated();
    } catch (error) {
      setFailure(error);
    }
  }

  return html`<section class="panel" aria-labelledby=${kind.id}>
    <h2 id=${kind.id}>${kind.heading}</h2>
    ${kind.intro ? html`<p>${kind.intro}</p>` : null}
    ${created
      ? html`<div class="secret" role="status">
          <p><strong>${created.token.name}</strong> was created${created.token.expiresAt
            ? html`; it works until <${Time} iso=${created.token.expiresAt} />`
            : null}. Its secret is shown only this once:</p>
          <p><code class="secret-value">${created.secret}</code></p>
          <${kind.Made} created=${created} />
          <button type="button" class="small" onClick=${() => setCreated(null)}>Done, hide the secret</button>
        </div>`
      : null}
    <form class="stack" onSubmit=${submit} novalidate>
      <div class="row">
        <${Field} label=${kind.nameLabel} value=${name} onInput=${setName} required=${true}
          hint=${kind.nameHint} error=${errorsFor(errors, "name")} />
        <${Field} label=${kind.expiresLabel} type="datetime-local" value=${expires}
          onInput=${setExpires} hint=${kind.expiresHint} error=${errorsFor(errors, "expiresAt")} />
      </div>
      <${kind.Extra} value=${extra} onChange=${setExtra} departments=${departments}
        error=${errorsFor(errors, kind.extraField)} />
      <${FormErrors} errors=${errors} fields=${["name", kind.extraField, "expiresAt"]} />
      <${ErrorMessage} error=${failure} />
      <div class="actions"><button type="submit" class="primary">${kind.submit}</button></div>
    </form>
  </section>`;
}

function tokenState(t) {
  if (t.revokedAt) return html`Revoked <${Time} iso=${t.revokedAt} />`;
  if (t.expired) return html`Expired <${Time} iso=${t.expiresAt} />`;
  if (t.expiresAt) return html`Active, expires <${Time} iso=${t.expiresAt} />`;
  return "Active";
}

const TOKEN_KINDS = { SESSION: "Session", API: "API", DISPLAY: "Display" };

export function Tokens() {
  const list = useList(ADMIN_TOKENS, "tokens");
  // Signing in keeps the session's id: this browser's token is marked, and revoking it
  // signs the admin out here.
  const thisBrowser = session().tokenId;
  const [revoking, setRevoking] = useState(null);
  const [error, setError] = useState("");
  const queues = list.data
    ? list.data.departments.filter((d) => d.hasQueue)
    : [];

  async function revoke() {
    setError("");
    try {
      const { revokeToken } = await request(REVOKE_TOKEN, { input: { tokenId: revoking.id } });
      if (revokeToken.userErrors.length) {
        setError(revokeToken.userErrors.map((e) => e.message).join(" "));
        return;
      }
      setRevoking(null);
      list.refresh();
    } catch (failure) {
      setError(messageOf(failure));
    }
  }

  if (!list.data) {
    return list.error ? html`<${ErrorMessage} error=${list.error} />` : html`<${Loading} />`;
  }
  return html`
    <${CreateToken} kind=${DISPLAY_TOKEN} departments=${queues} onCreated=${list.refresh} />
    <${CreateToken} kind=${API_TOKEN} onCreated=${list.refresh} />
    <h2>All tokens</h2>
    <div class="table-wrap"><table>
      <thead><tr><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">For</th>
        <th scope="col">Created</th><th scope="col">State</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody>${list.items.map((t) => html`<tr key=${t.id}>
        <th scope="row">${t.name}${t.id === thisBrowser
          ? html` <span class="tag own">this browser</span>`
          : null}</th>
        <td>${TOKEN_KINDS[t.kind] || t.kind}</td>
        <td>${t.kind === "DISPLAY" ? t.departments.map((d) => d.name).join(", ") + " (made by " + t.user.name + ")" : t.user.name}</td>
        <td><${Time} iso=${t.createdAt} /></td>
        <td>${tokenState(t)}</td>
        <td>${t.revokedAt ? null : html`<button type="button" class="small" aria-label=${"Revoke " + t.name}
          onClick=${() => { setError(""); setRevoking(t); }}>Revoke</button>`}</td>
      </tr>`)}</tbody>
    </table></div>
    <${ShowMore} list=${list} />
    ${revoking
      ? html`<${Dialog} title=${"Revoke " + revoking.name + "?"} onClose=${() => setRevoking(null)}>
          <p>It stops working at once; live connections using it close.</p>
          ${revoking.id === thisBrowser
            ? html`<p class="message notice"><strong><span aria-hidden="true">⚠ </span>This is
                the session of this browser: revoking it signs you out here.</strong></p>`
            : null}
          <${ErrorMessage}>${error}<//>
          <div class="actions">
            <button type="button" class="danger" onClick=${revoke}>Revoke token</button>
            <button type="button" onClick=${() => setRevoking(null)}>Keep it</button>
          </div>
        <//>`
      : null}`;
}


// Admin (admins): people (add, departments, deactivate / reactivate, set password),
// departments, and tokens (create wall display and API tokens, list and revoke any token,
// the session of this browser marked). Release / Complete / Reopen of a task are
// on the work order's page (screens/workorder.js), where the task is.
import { gql } from "../lib/graphql.js";
import { html, useState } from "../lib/html.js";
import { Link } from "../lib/router.js";
import { session } from "../lib/session.js";
import {
  Checkbox,
  Dialog,
  ErrorMessage,
  Field,
  Loading,
  ShowMore,
  Time,
  errorsFor,
  messageOf,
  otherErrors,
  request,
  useId,
  usePages,
  useQuery,
  useTitle,
} from "../lib/ui.js";

export const ADMIN_PEOPLE = gql`
  query AdminPeople($after: String) {
    users(first: 50, after: $after) {
      pageInfo { hasNextPage endCursor }
      edges { node { id name email isAdmin isActive departments { code name } } }
    }
    departments { code name }
  }
`;

export const CREATE_USER = gql`
  mutation CreateUser($input: CreateUserInput!) {
    createUser(input: $input) {
      user { id name }
      userErrors { code field message }
    }
  }
`;

export const SET_USER_DEPARTMENTS = gql`
  mutation SetUserDepartments($input: SetUserDepartmentsInput!) {
    setUserDepartments(input: $input) {
      user { id departments { code name } }
      userErrors { code field message }
    }
  }
`;

export const DEACTIVATE_USER = gql`
  mutation DeactivateUser($input: DeactivateUserInput!) {
    deactivateUser(input: $input) {
      user { id isActive }
      userErrors { code field message }
    }
  }
`;

export const REACTIVATE_USER = gql`
  mutation ReactivateUser($input: ReactivateUserInput!) {
    reactivateUser(input: $input) {
      user { id isActive }
      userErrors { code field message }
    }
  }
`;

export const SET_PASSWORD = gql`
  mutation SetPassword($input: SetPasswordInput!) {
    setPassword(input: $input) {
      user { id name isActive }
      userErrors { code field message }
    }
  }
`;

export const ADMIN_DEPARTMENTS = gql`
  query AdminDepartments {
    departments { id code name kind gatesDelivery }
  }
`;

export const CREATE_DEPARTMENT = gql`
  mutation CreateDepartment($input: CreateDepartmentInput!) {
    createDepartment(input: $input) {
      department { id code name }
      userErrors { code field message }
    }
  }
`;

export const ADMIN_TOKENS = gql`
  query AdminTokens($after: String) {
    tokens(first: 50, after: $after) {
      pageInfo { hasNextPage endCursor }
      edges {
        node {
          id kind name createdAt expiresAt revokedAt
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
      token { id name departments { code name } }
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

const SECTIONS = [
  ["people", "People"],
  ["departments", "Departments"],
  ["tokens", "Tokens"],
];

// A list of `field` a page at a time; `update` merges a mutation's answer (a node with
// its id) into the row it changed.
function useList(query, field) {
  const list = usePages(query, {}, (data) => data[field]);
  return {
    ...list,
    update(node) {
      list.mapNodes((shown) => (shown.id === node.id ? { ...shown, ...node } : shown));
    },
  };
}

function DepartmentChecks({ departments, chosen, onChange, legend }) {
  return html`<fieldset>
    <legend>${legend}</legend>
    <div class="checks">
      ${departments.map((d) => html`<${Checkbox} key=${d.code} label=${d.name} checked=${chosen.includes(d.code)}
        onChange=${(on) => onChange(on ? [...chosen, d.code] : chosen.filter((c) => c !== d.code))} />`)}
    </div>
  </fieldset>`;
}

function CreateUserForm({ departments, onCreated }) {
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [codes, setCodes] = useState([]);
  const [isAdmin, setIsAdmin] = useState(false);
  const [errors, setErrors] = useState([]);
  const [failure, setFailure] = useState(null);
  const [done, setDone] = useState("");

  async function submit(event) {
    event.preventDefault();
    setErrors([]);
    setFailure(null);
    setDone("");
    try {
      const { createUser } = await request(CREATE_USER, {
        input: { name: name.trim(), email: email.trim(), password, departmentCodes: codes, isAdmin },
      });
      if (createUser.userErrors.length) {
        setErrors(createUser.userErrors);
        return;
      }
      setDone(`${createUser.user.name} can now sign in.`);
      setName("");
      setEmail("");
      setPassword("");
      setCodes([]);
      setIsAdmin(false);
      onCreated();
    } catch (error) {
      setFailure(error);
    }
  }

  const other = errors.filter((e) => !["name", "email", "password"].includes(e.field));
  return html`<section class="panel" aria-labelledby="new-user">
    <h2 id="new-user">Add a person</h2>
    <form class="stack" onSubmit=${submit} novalidate>
      <${Field} label="Name" value=${name} onInput=${setName} required=${true} error=${errorsFor(errors, "name")} />
      <${Field} label="Email" type="email" value=${email} onInput=${setEmail} required=${true}
        autocomplete="off" error=${errorsFor(errors, "email")} />
      <${Field} label="Password" type="password" value=${password} onInput=${setPassword} required=${true}
        autocomplete="new-password" error=${errorsFor(errors, "password")} />
      <${DepartmentChecks} legend="Departments" departments=${departments} chosen=${codes} onChange=${setCodes} />
      <${Checkbox} label="Administrator" checked=${isAdmin} onChange=${setIsAdmin} />
      <${ErrorMessage}>${other.map((e) => e.message).join(" ")}<//>
      <${ErrorMessage} error=${failure} />
      ${done ? html`<p class="message success" role="status"><span aria-hidden="true">✓ </span>${done}</p>` : null}
      <div class="actions"><button type="submit" class="primary">Create user</button></div>
    </form>
  </section>`;
}

function DepartmentsDialog({ user, departments, onClose, onSaved }) {
  const [codes, setCodes] = useState(user.departments.map((d) => d.code));
  const [error, setError] = useState("");
  async function submit(event) {
    event.preventDefault();
    try {
      const { setUserDepartments: result } = await request(SET_USER_DEPARTMENTS, {
        input: { userId: user.id, departmentCodes: codes },
      });
      if (result.userErrors.length) {
        setError(result.userErrors.map((e) => e.message).join(" "));
        return;
      }
      onSaved();
      onClose();
    } catch (failure) {
      setError(messageOf(failure));
    }
  }
  return html`<${Dialog} title=${"Departments of " + user.name} onClose=${onClose}>
    <form onSubmit=${submit}>
      <${DepartmentChecks} legend="Member of" departments=${departments} chosen=${codes} onChange=${setCodes} />
      <${ErrorMessage}>${error}<//>
      <div class="actions">
        <button type="submit" class="primary">Save departments</button>
        <button type="button" onClick=${onClose}>Back</button>
      </div>
    </form>
  <//>`;
}

function DeactivateDialog({ user, onClose, onChanged }) {
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  async function deactivate() {
    setError("");
    setBusy(true);
    try {
      const { deactivateUser: result } = await request(DEACTIVATE_USER, { input: { userId: user.id } });
      setBusy(false);
      if (result.userErrors.length) {
        setError(result.userErrors.map((e) => e.message).join(" "));
        return;
      }
      onChanged(result.user, `${user.name} is deactivated and signed out everywhere.`);
      onClose();
    } catch (failure) {
      setBusy(false);
      setError(messageOf(failure));
    }
  }
  return html`<${Dialog} title=${"Deactivate " + user.name + "?"} onClose=${onClose}>
    <p>Every token of theirs stops working at once (sessions, API tokens and the wall displays they made),
      and they cannot sign in until an admin reactivates them. Their sessions and API tokens are revoked
      for good; the wall displays work again once they are back. Their history stays.</p>
    <${ErrorMessage}>${error}<//>
    <div class="actions">
      <button type="button" class="danger" aria-busy=${busy ? "true" : undefined} onClick=${deactivate}>Deactivate account</button>
      <button type="button" onClick=${onClose}>Keep active</button>
    </div>
  <//>`;
}

function PasswordDialog({ user, onClose, onChanged }) {
  const [password, setPassword] = useState("");
  const [errors, setErrors] = useState([]);
  const [failure, setFailure] = useState(null);
  const [busy, setBusy] = useState(false);
  async function submit(event) {
    event.preventDefault();
    setErrors([]);
    setFailure(null);
    setBusy(true);
    try {
      const { setPassword: result } = await request(SET_PASSWORD, { input: { userId: user.id, password } });
      setBusy(false);
      if (result.userErrors.length) {
        setErrors(result.userErrors);
        return;
      }
      onChanged(result.user, `${user.name} has a new password; their sessions and API tokens ended.`);
      onClose();
    } catch (error) {
      setBusy(false);
      setFailure(error);
    }
  }
  return html`<${Dialog} title=${"Set the password of " + user.name} onClose=${onClose}>
    <form onSubmit=${submit} novalidate>
      <p>Their sessions and API tokens end; they sign in again with this password. Wall display tokens keep working.</p>
      <${Field} label="New password" type="password" value=${password} onInput=${setPassword} required=${true}
        autocomplete="new-password" hint="8 to 256 characters" error=${errorsFor(errors, "password")} />
      <${ErrorMessage}>${otherErrors(errors, ["password"])}<//>
      <${ErrorMessage} error=${failure} />
      <div class="actions">
        <button type="submit" class="primary" aria-busy=${busy ? "true" : undefined}>Set password</button>
        <button type="button" onClick=${onClose}>Back</button>
      </div>
    </form>
  <//>`;
}

function People({ me }) {
  const list = useList(ADMIN_PEOPLE, "users");
  const [editing, setEditing] = useState(null);
  const [dialog, setDialog] = useState(null);
  const [failure, setFailure] = useState("");
  const [done, setDone] = useState("");
  const departments = list.data ? list.data.departments : [];

  function changed(user, message) {
    list.update(user);
    setDone(message);
  }

  async function reactivate(user) {
    setFailure("");
    setDone("");
    try {
      const { reactivateUser: result } = await request(REACTIVATE_USER, { input: { userId: user.id } });
      if (result.userErrors.length) {
        setFailure(result.userErrors.map((e) => e.message).join(" "));
        return;
      }
      changed(result.user, `${user.name} is active again; their unexpired tokens work again.`);
    } catch (error) {
      setFailure(messageOf(error));
    }
  }

  function open(kind, user) {
    setFailure("");
    setDone("");
    setDialog({ kind, user });
  }

  if (!list.data) {
    return list.error ? html`<${ErrorMessage} error=${list.error} />` : html`<${Loading} />`;
  }
  // "Set password…" names its person in hidden text rather than aria-label, so that
  // nothing but the form's Password field is labelled "password".
  return html`
    <h2>People</h2>
    <div class="table-wrap"><table>
      <thead><tr><th scope="col">Name and email</th><th scope="col">Departments</th>
        <th scope="col">Admin</th><th scope="col">Account</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody>${list.items.map((u) => html`<tr key=${u.id}>
        <th scope="row">${u.name}<span class="under">${u.email}</span></th>
        <td>${u.departments.map((d) => d.name).join(", ") || "—"}</td>
        <td>${u.isAdmin ? html`<strong>Admin</strong>` : "No"}</td>
        <td>${u.isActive ? "Active" : html`<strong class="account-off"><span aria-hidden="true">✕ </span>Deactivated</strong>`}</td>
        <td><div class="row-actions">
          <button type="button" class="small" aria-label=${"Set departments of " + u.name}
            onClick=${() => setEditing(u)}>Set departments</button>
          <button type="button" class="small" onClick=${() => open("password", u)}>Set password…<span
            class="visually-hidden"> for ${u.name}</span></button>
          ${!u.isActive
            ? html`<button type="button" class="small" aria-label=${"Reactivate " + u.name}
                onClick=${() => reactivate(u)}>Reactivate</button>`
            : u.id === me.id
              ? null
              : html`<button type="button" class="small" aria-label=${"Deactivate " + u.name}
                  onClick=${() => open("deactivate", u)}>Deactivate…</button>`}
        </div></td>
      </tr>`)}</tbody>
    </table></div>
    <${ErrorMessage}>${failure}<//>
    ${done ? html`<p class="message success" role="status"><span aria-hidden="true">✓ </span>${done}</p>` : null}
    <${ShowMore} list=${list} />
    <${CreateUserForm} departments=${departments} onCreated=${list.refresh} />
    ${editing
      ? html`<${DepartmentsDialog} user=${editing} departments=${departments}
          onClose=${() => setEditing(null)} onSaved=${list.refresh} />`
      : null}
    ${dialog && dialog.kind === "deactivate"
      ? html`<${DeactivateDialog} user=${dialog.user} onClose=${() => setDialog(null)} onChanged=${changed} />`
      : null}
    ${dialog && dialog.kind === "password"
      ? html`<${PasswordDialog} user=${dialog.user} onClose=${() => setDialog(null)} onChanged=${changed} />`
      : null}`;
}

const KINDS = ["PRODUCTION", "DELIVERY", "SALES", "ACCOUNTS"];

function Departments() {
  const list = useQuery(ADMIN_DEPARTMENTS);
  const [code, setCode] = useState("");
  const [name, setName] = useState("");
  const [kind, setKind] = useState("PRODUCTION");
  const [gates, setGates] = useState(true);
  const [errors, setErrors] = useState([]);
  const [failure, setFailure] = useState(null);
  const [done, setDone] = useState("");
  const kindId = useId("kind");
  // Exactly one DELIVERY department exists: offer it only while the list shows none.
  const hasDelivery = !list.data || list.data.departments.some((d) => d.kind === "DELIVERY");
  const kinds = KINDS.filter((k) => k !== "DELIVERY" || !hasDelivery);

  async function submit(event) {
    event.preventDefault();
    setErrors([]);
    setFailure(null);
    setDone("");
    try {
      const { createDepartment } = await request(CREATE_DEPARTMENT, {
        input: { code: code.trim(), name: name.trim(), kind, gatesDelivery: kind === "PRODUCTION" ? gates : false },
      });
      if (createDepartment.userErrors.length) {
        setErrors(createDepartment.userErrors);
        return;
      }
      setDone(`${createDepartment.department.name} created.`);
      setCode("");
      setName("");
      list.refetch();
    } catch (error) {
      setFailure(error);
    }
  }

  return html`
    <h2>Departments</h2>
    <${ErrorMessage} error=${list.error} />
    ${list.data
      ? html`<div class="table-wrap"><table>
          <thead><tr><th scope="col">Name</th><th scope="col">Code</th><th scope="col">Kind</th><th scope="col">Gates delivery</th></tr></thead>
          <tbody>${list.data.departments.map((d) => html`<tr key=${d.id}>
            <th scope="row">${d.name}</th><td><code>${d.code}</code></td>
            <td>${d.kind.charAt(0) + d.kind.slice(1).toLowerCase()}</td><td>${d.gatesDelivery ? "Yes" : "No"}</td>
          </tr>`)}</tbody>
        </table></div>`
      : html`<${Loading} />`}
    <section class="panel" aria-labelledby="new-dept">
      <h2 id="new-dept">Add a department</h2>
      <form class="stack" onSubmit=${submit} novalidate>
        <div class="row">
          <${Field} label="Name" value=${name} onInput=${setName} required=${true} error=${errorsFor(errors, "name")} />
          <${Field} label="Code" value=${code} onInput=${setCode} required=${true}
            hint="Lowercase letters, digits and hyphens, e.g. large-format" error=${errorsFor(errors, "code")} />
        </div>
        <div class="field">
          <label for=${kindId}>Kind</label>
          <select id=${kindId} value=${kind} onChange=${(e) => setKind(e.currentTarget.value)}>
            ${kinds.map((k) => html`<option value=${k}>${k.charAt(0) + k.slice(1).toLowerCase()}</option>`)}
          </select>
        </div>
        ${kind === "PRODUCTION"
          ? html`<${Checkbox} label="Delivery waits for this department" checked=${gates} onChange=${setGates} />`
          : null}
        <${ErrorMessage}>${errors.filter((e) => !["name", "code"].includes(e.field)).map((e) => e.message).join(" ")}<//>
        <${ErrorMessage} error=${failure} />
        ${done ? html`<p class="message success" role="status"><span aria-hidden="true">✓ </span>${done}</p>` : null}
        <div class="actions"><button type="submit" class="primary">Create department</button></div>
      </form>
    </section>`;
}

function displayLink(code, secret) {
  return `/display/${encodeURIComponent(code)}?token=${encodeURIComponent(secret)}`;
}

function CreateDisplayToken({ departments, onCreated }) {
  const [name, setName] = useState("");
  const [expires, setExpires] = useState("");
  const [codes, setCodes] = useState([]);
  const [errors, setErrors] = useState([]);
  const [failure, setFailure] = useState(null);
  const [created, setCreated] = useState(null);

  async function submit(event) {
    event.preventDefault();
    setErrors([]);
    setFailure(null);
    try {
      const { createDisplayToken: result } = await request(CREATE_DISPLAY_TOKEN, {
        input: {
          name: name.trim(),
          departmentCodes: codes,
          expiresAt: expires ? withOffset(expires) : null,
        },
      });
      if (result.userErrors.length) {
        setErrors(result.userErrors);
        return;
      }
      setCreated(result);
      setName("");
      setExpires("");
      setCodes([]);
      onCreated();
    } catch (error) {
      setFailure(error);
    }
  }

  return html`<section class="panel" aria-labelledby="new-token">
    <h2 id="new-token">New wall display token</h2>
    ${created
      ? html`<div class="secret" role="status">
          <p><strong>${created.token.name}</strong> was created. Its secret is shown only this once:</p>
          <p><code class="secret-value">${created.secret}</code></p>
          <ul>${created.token.departments.map((d) => html`<li key=${d.code}>
            <a href=${displayLink(d.code, created.secret)} target="_blank" rel="noopener noreferrer">
              Open the ${d.name} wall display</a></li>`)}</ul>
          <button type="button" class="small" onClick=${() => setCreated(null)}>Done, hide the secret</button>
        </div>`
      : null}
    <form class="stack" onSubmit=${submit} novalidate>
      <div class="row">
        <${Field} label="Token name" value=${name} onInput=${setName} required=${true}
          hint="Where it hangs, e.g. Print room wall" error=${errorsFor(errors, "name")} />
        <${Field} label="Display token expires (optional)" type="datetime-local" value=${expires}
          onInput=${setExpires} hint="Your local time; empty: it never expires"
          error=${errorsFor(errors, "expiresAt")} />
      </div>
      <${DepartmentChecks} legend="Queues it may show" departments=${departments} chosen=${codes} onChange=${setCodes} />
      ${errorsFor(errors, "departmentCodes") ? html`<p class="field-error">${errorsFor(errors, "departmentCodes")}</p>` : null}
      <${ErrorMessage}>${otherErrors(errors, ["name", "departmentCodes", "expiresAt"])}<//>
      <${ErrorMessage} error=${failure} />
      <div class="actions"><button type="submit" class="primary">Create display token</button></div>
    </form>
  </section>`;
}

// A datetime-local value ("2026-12-31T17:30") as an ISO date-time with this browser's
// offset ("2026-12-31T17:30:00+01:00"): the server needs the time zone.
function withOffset(local) {
  const date = new Date(local);
  if (Number.isNaN(date.getTime())) return local;
  const minutes = -date.getTimezoneOffset();
  const pad = (n) => String(Math.floor(Math.abs(n))).padStart(2, "0");
  const zone = (minutes < 0 ? "-" : "+") + pad(minutes / 60) + ":" + pad(minutes % 60);
  return `${local.length === 16 ? local + ":00" : local}${zone}`;
}

function CreateApiToken({ onCreated }) {
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [expires, setExpires] = useState("");
  const [errors, setErrors] = useState([]);
  const [failure, setFailure] = useState(null);
  const [created, setCreated] = useState(null);

  async function submit(event) {
    event.preventDefault();
    setErrors([]);
    setFailure(null);
    try {
      const { createApiToken: result } = await request(CREATE_API_TOKEN, {
        input: { name: name.trim(), password, expiresAt: expires ? withOffset(expires) : null },
      });
      setPassword("");
      if (result.userErrors.length) {
        setErrors(result.userErrors);
        return;
      }
      setCreated(result);
      setName("");
      setExpires("");
      onCreated();
    } catch (error) {
      setFailure(error);
    }
  }

  return html`<section class="panel" aria-labelledby="new-api-token">
    <h2 id="new-api-token">New API token</h2>
    <p>It acts as you, with your rights, for a program that calls the API.</p>
    ${created
      ? html`<div class="secret" role="status">
          <p><strong>${created.token.name}</strong> was created${created.token.expiresAt
            ? html`; it works until <${Time} iso=${created.token.expiresAt} />`
            : null}. Its secret is shown only this once:</p>
          <p><code class="secret-value">${created.secret}</code></p>
          <p>Send it as <code>Authorization: Bearer</code> followed by the secret.</p>
          <button type="button" class="small" onClick=${() => setCreated(null)}>Done, hide the secret</button>
        </div>`
      : null}
    <form class="stack" onSubmit=${submit} novalidate>
      <div class="row">
        <${Field} label="Name of the API token" value=${name} onInput=${setName} required=${true}
          hint="What uses it, e.g. Web shop orders" error=${errorsFor(errors, "name")} />
        <${Field} label="API token expires (optional)" type="datetime-local" value=${expires}
          onInput=${setExpires} hint="Your local time; empty: in 90 days"
          error=${errorsFor(errors, "expiresAt")} />
      </div>
      <${Field} label="Your password" type="password" value=${password} onInput=${setPassword}
        required=${true} autocomplete="current-password" hint="Asked again: a token acts as you"
        error=${errorsFor(errors, "password")} />
      <${ErrorMessage}>${otherErrors(errors, ["name", "expiresAt", "password"])}<//>
      <${ErrorMessage} error=${failure} />
      <div class="actions"><button type="submit" class="primary">Create API token</button></div>
    </form>
  </section>`;
}

function tokenState(t) {
  if (t.revokedAt) return html`Revoked <${Time} iso=${t.revokedAt} />`;
  if (t.expiresAt && Date.parse(t.expiresAt) < Date.now()) return html`Expired <${Time} iso=${t.expiresAt} />`;
  if (t.expiresAt) return html`Active, expires <${Time} iso=${t.expiresAt} />`;
  return "Active";
}

const TOKEN_KINDS = { SESSION: "Session", API: "API", DISPLAY: "Display" };

function Tokens() {
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
    <${CreateDisplayToken} departments=${queues} onCreated=${list.refresh} />
    <${CreateApiToken} onCreated=${list.refresh} />
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

export function Admin({ section, me }) {
  const current = SECTIONS.find(([key]) => key === section);
  useTitle(current ? `Admin: ${current[1]}` : "Admin");
  return html`<h1>Admin</h1>
    <nav aria-label="Admin sections" class="tabs">
      <ul>${SECTIONS.map(([key, label]) => html`<li key=${key}>
        <${Link} href=${"/admin/" + key} aria-current=${key === section ? "page" : undefined}>${label}<//></li>`)}
      </ul>
    </nav>
    ${section === "people" ? html`<${People} me=${me} />` : null}
    ${section === "departments" ? html`<${Departments} />` : null}
    ${section === "tokens" ? html`<${Tokens} />` : null}
    ${current ? null : html`<p>No such section. <${Link} href="/admin/people">People<//></p>`}
    <p class="hint">Release, Complete and Reopen of a task are on its work order’s page.</p>`;
}

// Admin: people (add, departments, deactivate / reactivate, set password).
import { gql } from "../../lib/graphql.js";
import { html, useState } from "../../lib/html.js";
import { ShowMore, problems, request, useOnce } from "../../lib/data.js";
import { Checkbox, Field, FormErrors, errorsFor } from "../../lib/forms.js";
import { ErrorMessage, Loading, RetryMessage, messageOf } from "../../lib/messages.js";
import { Dialog } from "../../lib/ui.js";
import { DepartmentChecks, useList } from "./parts.js";

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

function CreateUserForm({ departments, onCreated }) {
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [codes, setCodes] = useState([]);
  const [isAdmin, setIsAdmin] = useState(false);
  const [done, setDone] = useState("");
  // One key per person added, kept across retries of that submission (useOnce).
  const { errors, failure, busy, held, send } = useOnce();

  async function submit(event) {
    event.preventDefault();
    setDone("");
    await send(CREATE_USER, "createUser",
      { name: name.trim(), email: email.trim(), password, departmentCodes: codes, isAdmin },
      (createUser) => {
        setDone(`${createUser.user.name} can now sign in.`);
        setName("");
        setEmail("");
        setPassword("");
        setCodes([]);
        setIsAdmin(false);
        onCreated();
      });
  }

  // The success line sits below the button: it goes when the next person is sent, and
  // moving nothing, it leaves a double click's second click on the button.
  return html`<section class="panel" aria-labelledby="new-user">
    <h2 id="new-user">Add a person</h2>
    <form class="stack" onSubmit=${submit} novalidate>
      <fieldset class="as-sent" disabled=${held}>
        <${Field} label="Name" value=${name} onInput=${setName} required=${true} error=${errorsFor(errors, "name")} />
        <${Field} label="Email" type="email" value=${email} onInput=${setEmail} required=${true}
          autocomplete="off" error=${errorsFor(errors, "email")} />
        <${Field} label="Password" type="password" value=${password} onInput=${setPassword} required=${true}
          autocomplete="new-password" error=${errorsFor(errors, "password")} />
        <${DepartmentChecks} legend="Departments" departments=${departments} chosen=${codes} onChange=${setCodes}
          error=${errorsFor(errors, "departmentCodes")} />
        <${Checkbox} label="Administrator" checked=${isAdmin} onChange=${setIsAdmin} />
      </fieldset>
      <${FormErrors} errors=${errors} fields=${["name", "email", "password", "departmentCodes"]} />
      <${RetryMessage} failure=${failure} button="Create user" what="this person" verb="added" />
      <div class="actions">
        <button type="submit" class="primary" aria-busy=${busy ? "true" : undefined}>Create user</button>
      </div>
      ${done ? html`<p class="message success" role="status"><span aria-hidden="true">✓ </span>${done}</p>` : null}
    </form>
  </section>`;
}

function DepartmentsDialog({ user, departments, onClose, onSaved }) {
  const [codes, setCodes] = useState(user.departments.map((d) => d.code));
  const [errors, setErrors] = useState([]);
  async function submit(event) {
    event.preventDefault();
    setErrors([]);
    const found = await problems(SET_USER_DEPARTMENTS, "setUserDepartments", { userId: user.id, departmentCodes: codes });
    if (found) {
      setErrors(found);
      return;
    }
    onSaved();
    onClose();
  }
  return html`<${Dialog} title=${"Departments of " + user.name} onClose=${onClose}>
    <form onSubmit=${submit}>
      <${DepartmentChecks} legend="Member of" departments=${departments} chosen=${codes} onChange=${setCodes}
        error=${errorsFor(errors, "departmentCodes")} />
      <${FormErrors} errors=${errors} fields=${["departmentCodes"]} />
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
      <${FormErrors} errors=${errors} fields=${["password"]} />
      <${ErrorMessage} error=${failure} />
      <div class="actions">
        <button type="submit" class="primary" aria-busy=${busy ? "true" : undefined}>Set password</button>
        <button type="button" onClick=${onClose}>Back</button>
      </div>
    </form>
  <//>`;
}

export function People({ me }) {
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


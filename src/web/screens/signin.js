// Sign in, sign out, and who is signed in.
import { gql } from "../lib/graphql.js";
import { html, useState } from "../lib/html.js";
import { signedIn, signedOut, end, transport } from "../lib/session.js";
import { Field, FormErrors, errorsFor } from "../lib/forms.js";
import { messageOf } from "../lib/messages.js";
import { useTitle } from "../lib/ui.js";

export const SIGN_IN = gql`
  mutation SignIn($input: LoginInput!) {
    login(input: $input) {
      token
      tokenId
      user { id name isAdmin access departments { code name kind hasQueue } }
      userErrors { code field message }
    }
  }
`;

export const SIGN_OUT = gql`
  mutation SignOut($input: LogoutInput!) {
    logout(input: $input) {
      token { id revokedAt }
      userErrors { code message }
    }
  }
`;

// Who the stored token belongs to: null when it no longer works.
export const ME = gql`
  query Me {
    me { id name isAdmin access departments { code name kind hasQueue } }
  }
`;

export async function loadMe() {
  const data = await transport.request(ME);
  if (!data.me) {
    end("Your session has ended (it expired, was revoked, or you signed out elsewhere).");
    return null;
  }
  return data.me;
}

export async function signOut() {
  try {
    await transport.request(SIGN_OUT, { input: { everywhere: false } });
  } catch (error) {
    // Already expired or revoked: nothing left to revoke.
  }
  signedOut();
}

export function SignIn({ notice }) {
  useTitle("Sign in");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [errors, setErrors] = useState([]);
  const [busy, setBusy] = useState(false);

  async function submit(event) {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setErrors([]);
    try {
      const { login } = await transport.request(SIGN_IN, { input: { email, password } });
      if (login.userErrors.length) {
        setErrors(login.userErrors);
      } else {
        signedIn(login.token, login.user, login.tokenId);
      }
    } catch (failure) {
      setErrors([{ field: null, message: messageOf(failure) }]);
    }
    setBusy(false);
  }

  return html`<main id="main" class="signin">
    <div class="signin-box">
      <h1>Pressroom</h1>
      <p class="lead">Sign in to see your queues, work orders and accounts.</p>
      ${notice ? html`<p class="message notice" role="status">${notice}</p>` : null}
      <form onSubmit=${submit} novalidate>
        <${Field} label="Email" type="email" value=${email} onInput=${setEmail}
          autocomplete="username" required=${true} error=${errorsFor(errors, "email")} />
        <${Field} label="Password" type="password" value=${password} onInput=${setPassword}
          autocomplete="current-password" required=${true} error=${errorsFor(errors, "password")} />
        <${FormErrors} errors=${errors} fields=${["email", "password"]} />
        <button type="submit" class="primary wide" aria-busy=${busy ? "true" : undefined}>Sign in</button>
      </form>
    </div>
  </main>`;
}

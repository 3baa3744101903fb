// The order page's proofs: whether the customer must approve one, its versions (newest
// first: status, who decided and how, the changes asked for, a preview and the file),
// a new version uploaded, the customer's decision recorded on their word, and the links
// that show the order's page to its customer (made with the secret shown once, revoked).
// What is offered is the order's allowedActions (UPLOAD_PROOF, DECIDE_PROOF,
// LINK_CUSTOMER, EDIT_DETAILS); the versions' states are the server's words.
import { gql } from "../../lib/graphql.js";
import { html, useEffect, useRef, useState } from "../../lib/html.js";
import { transport } from "../../lib/session.js";
import { request, useSubmit } from "../../lib/data.js";
import { Checkbox, Field, FormErrors, errorsFor } from "../../lib/forms.js";
import { ErrorMessage, messageOf } from "../../lib/messages.js";
import { Dialog, Time, when } from "../../lib/ui.js";

export const UPLOAD_PROOF = gql`
  mutation UploadProof($input: UploadProofInput!) {
    uploadProof(input: $input) {
      proof { id version }
      userErrors { code field message }
    }
  }
`;

export const APPROVE_PROOF = gql`
  mutation ApproveProof($input: ApproveProofInput!) {
    approveProof(input: $input) { changed userErrors { code field message } }
  }
`;

export const REQUEST_PROOF_CHANGES = gql`
  mutation RequestProofChanges($input: RequestProofChangesInput!) {
    requestProofChanges(input: $input) { changed userErrors { code field message } }
  }
`;

export const SET_PROOF_REQUIRED = gql`
  mutation SetProofRequired($input: UpdateWorkOrderInput!) {
    updateWorkOrder(input: $input) { changed userErrors { code field message } }
  }
`;

export const CREATE_CUSTOMER_LINK = gql`
  mutation CreateCustomerLink($input: CreateCustomerLinkInput!) {
    createCustomerLink(input: $input) { url link { id } userErrors { code field message } }
  }
`;

export const REVOKE_CUSTOMER_LINK = gql`
  mutation RevokeCustomerLink($input: RevokeCustomerLinkInput!) {
    revokeCustomerLink(input: $input) { link { id } userErrors { code field message } }
  }
`;

// A version's state in words, with a shape (never colour alone).
const PROOF_STATUS = {
  PENDING: ["Waiting for the customer", "○"],
  APPROVED: ["Approved", "✓"],
  CHANGES_REQUESTED: ["Changes requested", "↺"],
  WITHDRAWN: ["Replaced by a newer version", "–"],
};

export function ProofBadge({ proof }) {
  const [text, icon] = PROOF_STATUS[proof.status] || [proof.status, "·"];
  return html`<span class=${"badge proof-" + proof.status.toLowerCase()}><span aria-hidden="true">${icon} </span>${text}</span>`;
}

function size(bytes) {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.round(bytes / 1024))} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

// "Approved by Ann Lee, through their link" / "..., told to Sam Sales".
function decidedHow(proof) {
  if (!proof.decidedAt) return null;
  const verb = { APPROVED: "Approved", CHANGES_REQUESTED: "Changes asked for" }[proof.status] || "Decided";
  const way = proof.decidedBy
    ? `told to ${proof.decidedBy.name}`
    : { CUSTOMER: "through their link", SALES: "told to Sales" }[proof.decidedThrough] || "";
  return html`${verb} by <strong>${proof.decidedByName}</strong>, ${way}, <${Time} iso=${proof.decidedAt} />`;
}

// The preview, read with the session's token (an <img> could not send it).
function Preview({ proof }) {
  const [url, setUrl] = useState(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let made = null;
    let alive = true;
    transport.proofFile(proof.previewUrl).then(
      (blob) => {
        if (!alive) return;
        made = URL.createObjectURL(blob);
        setUrl(made);
      },
      () => alive && setFailed(true),
    );
    return () => {
      alive = false;
      if (made) URL.revokeObjectURL(made);
    };
  }, [proof.previewUrl]);
  if (failed) return html`<p class="proof-preview empty">No preview</p>`;
  if (!url) return html`<p class="proof-preview empty">Loading preview…</p>`;
  return html`<img class="proof-preview" src=${url} alt=${"Preview of version " + proof.version} />`;
}

function Download({ proof }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  async function onClick() {
    setBusy(true);
    setError(null);
    try {
      const url = URL.createObjectURL(await transport.proofFile(proof.downloadUrl));
      const link = document.createElement("a");
      link.href = url;
      link.download = proof.fileName;
      document.body.appendChild(link);
      link.click();
      link.remove();
      URL.revokeObjectURL(url);
    } catch (failure) {
      setError(failure);
    }
    setBusy(false);
  }
  return html`<span class="download">
    <button type="button" onClick=${onClick} aria-busy=${busy ? "true" : undefined} disabled=${busy}
      aria-label=${"Download version " + proof.version}>Download</button>
    <${ErrorMessage} error=${error} />
  </span>`;
}

function Version({ proof, decidable, onDecide }) {
  return html`<li class="proof" data-version=${proof.version}>
    <${Preview} proof=${proof} />
    <div class="proof-text">
      <h3>Version ${proof.version} <${ProofBadge} proof=${proof} /></h3>
      <p class="proof-file">${proof.fileName} · ${size(proof.sizeBytes)} · uploaded <${Time} iso=${proof.uploadedAt} />${proof.uploadedBy ? ` by ${proof.uploadedBy.name}` : ""}</p>
      ${proof.decidedAt ? html`<p class="proof-decision">${decidedHow(proof)}</p>` : null}
      ${proof.comment ? html`<blockquote class="proof-comment">${proof.comment}</blockquote>` : null}
      <div class="actions">
        <${Download} proof=${proof} />
        ${decidable
          ? html`<button type="button" class="primary" onClick=${() => onDecide(proof, true)}>Record approval</button>
            <button type="button" onClick=${() => onDecide(proof, false)}>Record changes requested</button>`
          : null}
      </div>
    </div>
  </li>`;
}

// The customer's decision, given to Sales: who said so, and for changes what.
function DecisionDialog({ order, proof, approve, onClose, onSaved }) {
  const [name, setName] = useState("");
  const [comment, setComment] = useState("");
  const { errors, setErrors, failure, busy, submit: send } = useSubmit();
  async function submit(event) {
    event.preventDefault();
    const lacking = [];
    if (!name.trim()) {
      lacking.push({ field: "approverName", message: "Give the name the customer gave: it is kept with the decision." });
    }
    if (!approve && !comment.trim()) lacking.push({ field: "comment", message: "Say what the customer wants changed." });
    if (lacking.length) {
      setErrors(lacking);
      return;
    }
    const input = { workOrderId: order.id, version: proof.version, approverName: name };
    const [mutation, field] = approve
      ? [APPROVE_PROOF, "approveProof"]
      : [REQUEST_PROOF_CHANGES, "requestProofChanges"];
    await send(mutation, field, { input: approve ? input : { ...input, comment } }, () => {
      onSaved(approve ? `Version ${proof.version} approved.` : `Changes requested on version ${proof.version}.`);
      onClose();
    });
  }
  return html`<${Dialog} title=${(approve ? "Record approval of version " : "Record changes to version ") + proof.version} onClose=${onClose}>
    <form onSubmit=${submit} novalidate>
      <p>${approve
        ? "Record that the customer approved this version: the work waiting for it enters its queues."
        : "Record what the customer wants changed: the proof goes back to its makers with your words."}</p>
      <${Field} label="Customer's name" value=${name} required=${true}
        onInput=${setName} hint="Who gave the decision, as they said it." error=${errorsFor(errors, "approverName")} />
      ${approve
        ? null
        : html`<${Field} label="Changes asked for" type="textarea" rows="3" value=${comment} required=${true}
            onInput=${setComment} error=${errorsFor(errors, "comment")} />`}
      <${FormErrors} errors=${errors} fields=${["approverName", "comment"]} />
      <${ErrorMessage} error=${failure} />
      <div class="actions">
        <button type="submit" class="primary" aria-busy=${busy ? "true" : undefined}>${approve ? "Record approval" : "Record changes"}</button>
        <button type="button" onClick=${onClose}>Back</button>
      </div>
    </form>
  <//>`;
}

function Uploader({ order, onSaved }) {
  const input = useRef(null);
  const [file, setFile] = useState(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  async function submit(event) {
    event.preventDefault();
    if (!file) {
      setError("Choose a PDF, PNG or JPEG file first.");
      return;
    }
    setBusy(true);
    setError("");
    try {
      const { uploadProof } = await transport.upload(
        UPLOAD_PROOF, { input: { workOrderId: order.id, file: null } }, "input.file", file,
      );
      if (uploadProof.userErrors.length) setError(uploadProof.userErrors.map((e) => e.message).join(" "));
      else {
        input.current.value = "";
        setFile(null);
        onSaved(`Version ${uploadProof.proof.version} uploaded: it waits for the customer.`);
      }
    } catch (failure) {
      setError(messageOf(failure));
    }
    setBusy(false);
  }
  return html`<form class="proof-upload" onSubmit=${submit} novalidate>
    <label for="proof-file">New proof version</label>
    <div class="proof-upload-row">
      <input id="proof-file" ref=${input} type="file" accept="application/pdf,image/png,image/jpeg"
        aria-describedby="proof-file-hint" onChange=${(e) => { setFile(e.currentTarget.files[0] || null); setError(""); }} />
      <button type="submit" aria-busy=${busy ? "true" : undefined} disabled=${busy}>Upload version</button>
    </div>
    <p class="hint" id="proof-file-hint">A PDF, PNG or JPEG. It replaces the version waiting for the customer.</p>
    <${ErrorMessage}>${error}<//>
  </form>`;
}

function Copy({ text }) {
  const [said, setSaid] = useState("");
  const field = useRef(null);
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setSaid("Copied.");
    } catch (error) {
      field.current.select();
      setSaid("Selected: press Ctrl+C (⌘C) to copy.");
    }
  }
  return html`<div class="copy">
    <input ref=${field} class="secret-value" readonly value=${text} aria-label="Customer page address" />
    <button type="button" class="primary" onClick=${copy}>Copy</button>
    <span role="status" class="copied">${said}</span>
  </div>`;
}

function linkState(link) {
  if (link.revokedAt) return html`<span class="badge cancelled"><span aria-hidden="true">✕ </span>Revoked</span> <${Time} iso=${link.revokedAt} />`;
  if (!link.works) return html`<span class="badge held"><span aria-hidden="true">– </span>Expired</span> <${Time} iso=${link.expiresAt} />`;
  return html`<span class="badge completed"><span aria-hidden="true">● </span>Works</span>${link.expiresAt ? html` until <${Time} iso=${link.expiresAt} />` : " while the order is open"}`;
}

function Links({ order, onSaved }) {
  const [made, setMade] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(null);
  async function make() {
    setBusy("make");
    setError(null);
    try {
      const { createCustomerLink: answer } = await request(CREATE_CUSTOMER_LINK, { input: { workOrderId: order.id } });
      if (answer.userErrors.length) setError(answer.userErrors.map((e) => e.message).join(" "));
      else {
        setMade(answer.url);
        onSaved(null);
      }
    } catch (failure) {
      setError(failure);
    }
    setBusy(null);
  }
  async function revoke(link) {
    setBusy(link.id);
    setError(null);
    try {
      const { revokeCustomerLink: answer } = await request(REVOKE_CUSTOMER_LINK, { input: { id: link.id } });
      if (answer.userErrors.length) setError(answer.userErrors.map((e) => e.message).join(" "));
      else onSaved("The link was revoked: its page now says so.");
    } catch (failure) {
      setError(failure);
    }
    setBusy(null);
  }
  return html`<div class="customer-links">
    <h3>Customer links</h3>
    ${made
      ? html`<div class="secret" role="status">
          <p><strong>Send this address to the customer.</strong> It is shown only this once:</p>
          <${Copy} text=${made} />
          <button type="button" class="small" onClick=${() => setMade(null)}>Done, hide the address</button>
        </div>`
      : null}
    <${ErrorMessage} error=${error} />
    ${order.customerLinks.length
      ? html`<ul class="links">
          ${order.customerLinks.map((link) => html`<li key=${link.id}>
            <span>${linkState(link)}</span>
            <span class="muted">Made <${Time} iso=${link.createdAt} />${link.createdBy ? ` by ${link.createdBy.name}` : link.emailedTo ? ` for ${link.emailedTo}` : ""}${" · "}${link.lastUsedAt ? html`opened <${Time} iso=${link.lastUsedAt} />` : "not opened yet"}</span>
            ${link.revokedAt
              ? null
              : html`<button type="button" class="small danger" aria-busy=${busy === link.id ? "true" : undefined}
                  onClick=${() => revoke(link)} aria-label=${"Revoke the link made " + when(link.createdAt)}>Revoke</button>`}
          </li>`)}
        </ul>`
      : html`<p class="empty">No links yet: the customer cannot see this order.</p>`}
    ${order.allowedActions.includes("LINK_CUSTOMER")
      ? html`<button type="button" onClick=${make} aria-busy=${busy === "make" ? "true" : undefined}>Make customer link</button>`
      : null}
  </div>`;
}

export function Proofs({ order, onChanged }) {
  const [deciding, setDeciding] = useState(null);
  const [notice, setNotice] = useState("");
  const required = useSubmit();
  const offered = (command) => order.allowedActions.includes(command);
  const latest = order.proofs[0];
  function saved(words) {
    setNotice(words || "");
    onChanged();
  }
  function setRequired(on) {
    const input = { workOrderId: order.id, expectedVersion: order.version, proofRequired: on };
    required.submit(SET_PROOF_REQUIRED, "updateWorkOrder", { input }, () => saved(
      on ? "The customer must now approve a proof before production." : "No proof approval is needed now.",
    ));
  }
  return html`<section aria-labelledby="proofs-heading" class="panel wide proofs">
    <h2 id="proofs-heading">Proof</h2>
    ${offered("EDIT_DETAILS")
      ? html`<${Checkbox} label="The customer must approve a proof before production" checked=${order.proofRequired}
          onChange=${setRequired} disabled=${required.busy} />`
      : html`<p>${order.proofRequired ? "The customer must approve a proof before production." : "No proof approval is needed."}</p>`}
    <${ErrorMessage}>${required.errors.map((e) => e.message).join(" ")}<//>
    <${ErrorMessage} error=${required.failure} />
    ${notice ? html`<p class="message success" role="status"><span aria-hidden="true">✓ </span>${notice}</p>` : null}
    ${offered("UPLOAD_PROOF") ? html`<${Uploader} order=${order} onSaved=${saved} />` : null}
    ${order.proofs.length
      ? html`<ol class="proofs-list" aria-label="Proof versions, newest first">
          ${order.proofs.map((p) => html`<${Version} key=${p.id} proof=${p}
            decidable=${p === latest && offered("DECIDE_PROOF")}
            onDecide=${(proof, approve) => setDeciding({ proof, approve })} />`)}
        </ol>`
      : html`<p class="empty">No proof versions yet.</p>`}
    ${order.customerLinks ? html`<${Links} order=${order} onSaved=${saved} />` : null}
    ${deciding
      ? html`<${DecisionDialog} order=${order} proof=${deciding.proof} approve=${deciding.approve}
          onClose=${() => setDeciding(null)} onSaved=${saved} />`
      : null}
  </section>`;
}

import { html } from 'htm/preact';
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';

interface Toast {
  id: number;
  text: string;
  tone: 'success' | 'error';
}

let toasts: Toast[] = [];
let nextId = 1;
const toastListeners = new Set<(t: Toast[]) => void>();

function publish() {
  for (const listener of toastListeners) listener(toasts);
}

/** Shows a short message in the corner; it goes away by itself. */
export function toast(text: string, tone: 'success' | 'error' = 'success'): void {
  const id = nextId++;
  // A few at a time: older ones make room rather than pile up over the page.
  toasts = [...toasts, { id, text, tone }].slice(-3);
  publish();
  setTimeout(() => {
    toasts = toasts.filter((t) => t.id !== id);
    publish();
  }, tone === 'error' ? 6000 : 3000);
}

/** Where toasts appear; a live region so screen readers announce them. */
export function Toasts() {
  const [list, setList] = useState(toasts);
  useEffect(() => {
    toastListeners.add(setList);
    return () => void toastListeners.delete(setList);
  }, []);
  return html`<div class="toasts" role="status" aria-live="polite">
    ${list.map((t) => html`<div key=${t.id} class=${`toast toast-${t.tone}`}>${t.text}</div>`)}
  </div>`;
}

/**
 * A modal dialog on the native `<dialog>` element, which traps focus, closes on Escape and
 * returns focus to where it was.
 */
export function Dialog(props: { open: boolean; title: string; onClose: () => void; children: ComponentChildren; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) dialog.showModal();
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  return html`<dialog
    ref=${ref}
    class=${`dialog${props.wide ? ' dialog-wide' : ''}`}
    aria-labelledby=${titleId}
    onClose=${props.onClose}
    onCancel=${(e: Event) => {
      e.preventDefault();
      props.onClose();
    }}
  >
    ${props.open
      ? html`<div class="dialog-body">
          <header class="dialog-head">
            <h2 id=${titleId}>${props.title}</h2>
            <button type="button" class="icon-btn" aria-label="Close" onClick=${props.onClose}>×</button>
          </header>
          ${props.children}
        </div>`
      : ''}
  </dialog>`;
}

/**
 * Asks before an action with consequences, naming them (`children`): the action runs only from
 * the dialog's button, and the dialog stays open with the error if it fails.
 */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  confirmLabel: string;
  danger?: boolean;
  busy?: boolean;
  error?: string;
  onConfirm: () => void;
  onClose: () => void;
  children: ComponentChildren;
}) {
  return html`<${Dialog} open=${props.open} title=${props.title} onClose=${props.onClose}>
    <div class="stack confirm">
      <div class="consequence">${props.children}</div>
      ${props.error ? html`<div class="alert alert-error" role="alert">${props.error}</div>` : ''}
      <div class="form-actions">
        <button type="button" class="btn btn-secondary" onClick=${props.onClose}>Cancel</button>
        <button type="button" class=${`btn btn-${props.danger ? 'danger' : 'primary'}${props.busy ? ' is-busy' : ''}`} disabled=${props.busy} aria-busy=${props.busy ? 'true' : undefined} onClick=${props.onConfirm}>
          ${props.confirmLabel}
        </button>
      </div>
    </div>
  <//>`;
}

import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Alert } from './alert.js';
import { messageOf } from './hooks.js';

/**
 * A modal that asks before a change that cannot be taken back (destroy, cancel,
 * rollback): nothing is sent until the user confirms, and a refusal is shown in place.
 */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  confirmLabel: string;
  danger?: boolean;
  children?: ComponentChildren;
  /** Sends the change; a throw keeps the dialog open with the error. */
  onConfirm: () => Promise<void>;
  onClose: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (props.open && !ref.current?.open) ref.current?.showModal();
    if (!props.open && ref.current?.open) ref.current.close();
  }, [props.open]);
  const close = () => {
    setError('');
    props.onClose();
  };
  const confirm = async () => {
    setBusy(true);
    try {
      await props.onConfirm();
      close();
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <dialog ref={ref} aria-label={props.title} onCancel={close}>
      <h2>{props.title}</h2>
      {props.children}
      <Alert message={error} />
      <div class="actions">
        <button type="button" class="secondary" onClick={close}>
          Back
        </button>
        <button type="button" class={props.danger ? 'danger' : ''} disabled={busy} onClick={confirm}>
          {props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

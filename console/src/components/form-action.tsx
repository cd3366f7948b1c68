import { useState, type FormEvent } from 'react';

/**
 * One form submission's state: busy while it runs, the gateway's own message when it fails (the
 * API's envelope names the problem), and a success line when it worked.
 */
export function useFormAction(action: () => Promise<string | void>) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const submit = async (event?: FormEvent) => {
    event?.preventDefault();
    setBusy(true);
    setFailure(null);
    setDone(null);
    try {
      setDone((await action()) ?? null);
    } catch (error) {
      setFailure(error instanceof Error ? error.message : 'That did not work.');
    } finally {
      setBusy(false);
    }
  };
  return { busy, failure, done, submit };
}

/** The failure and success lines under a form, announced to screen readers. */
export function FormOutcome({ failure, done }: { failure: string | null; done: string | null }) {
  if (failure)
    return (
      <p className="form-failure" role="alert">
        {failure}
      </p>
    );
  if (done)
    return (
      <p className="field-hint" role="status">
        {done}
      </p>
    );
  return null;
}

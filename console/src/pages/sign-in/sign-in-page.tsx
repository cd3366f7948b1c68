import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { signIn, signUp } from '../../api/auth';
import { refreshSession, useSession } from '../../session/session';
import { safeNextPath } from '../../session/require-session';
import { AuthForm, type AuthFields } from './auth-form';

/** /sign-in and /sign-up: after either, the console goes back to the page that asked (?next=). */
export function SignInPage({ mode }: { mode: 'sign-in' | 'sign-up' }) {
  const [params] = useSearchParams();
  const next = safeNextPath(params.get('next'));
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { user } = useSession();
  if (user) return <Navigate to={next} replace />;

  const submit = async (fields: AuthFields) => {
    // An invitation link (`gateway users invite`) carries its token as ?invite=.
    const invite = params.get('invite');
    if (mode === 'sign-up') await signUp(invite ? { ...fields, invite_token: invite } : fields);
    else await signIn(fields);
    await refreshSession(queryClient);
    navigate(next, { replace: true });
  };
  const otherMode = mode === 'sign-in' ? '/sign-up' : '/sign-in';
  const query = params.get('next') ? `?next=${encodeURIComponent(next)}` : '';

  return (
    <div className="auth-page">
      <div className="card auth-card">
        <p className="brand auth-brand">
          <span className="brand-mark" aria-hidden="true">
            ◆
          </span>
          LLM Gateway
        </p>
        <h1>{mode === 'sign-in' ? 'Sign in' : 'Create your account'}</h1>
        <p className="muted">
          {mode === 'sign-in'
            ? 'Manage API keys, credits and usage, and try models in the playground.'
            : 'One account for API keys, prepaid credits and usage across every model.'}
        </p>
        <AuthForm mode={mode} onSubmit={submit} />
        <p className="auth-switch">
          {mode === 'sign-in' ? 'New here? ' : 'Already have an account? '}
          <Link to={`${otherMode}${query}`}>{mode === 'sign-in' ? 'Create an account' : 'Sign in'}</Link>
        </p>
        <p className="auth-switch">
          <Link to="/models">Browse the model catalog</Link>
        </p>
      </div>
    </div>
  );
}

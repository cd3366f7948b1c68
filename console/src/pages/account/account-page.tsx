import { PageHeader } from '../../layout/page-states';
import { useSession } from '../../session/session';
import { formatDateTime } from '../../format/format';
import { EmailForm, NameForm, PasswordForm } from './profile-forms';
import { SessionsSection } from './sessions-section';
import { DeleteAccount } from './delete-account';
import { AlertsSection } from './alerts-section';

/** The account itself: name, email and password changes, alerts, where it is signed in, and deleting it. */
export default function AccountPage() {
  const { user } = useSession();
  if (!user) return null;
  return (
    <>
      <PageHeader
        title="Account"
        description={`${user.email} · ${user.role === 'admin' ? 'administrator' : 'member'} since ${formatDateTime(user.created_at)}`}
      />
      <div className="grid two-columns section">
        <NameForm user={user} />
        <EmailForm user={user} />
        <PasswordForm />
      </div>
      <AlertsSection />
      <SessionsSection />
      <DeleteAccount />
    </>
  );
}

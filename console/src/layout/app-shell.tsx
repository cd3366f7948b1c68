import { useState } from 'react';
import { NavLink, Outlet, useNavigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { refreshSession, useSession } from '../session/session';
import { signOut } from '../api/auth';
import { useTheme } from './theme';

const ACCOUNT_LINKS = [
  { to: '/', label: 'Dashboard', end: true },
  { to: '/keys', label: 'API keys' },
  { to: '/usage', label: 'Usage' },
  { to: '/activity', label: 'Activity' },
  { to: '/credits', label: 'Credits', end: true },
  { to: '/credits/history', label: 'Credit history' },
  { to: '/playground', label: 'Playground' },
  { to: '/account', label: 'Account' },
];
const ADMIN_LINKS = [
  { to: '/admin/users', label: 'Accounts' },
  { to: '/admin/invitations', label: 'Invitations' },
  { to: '/admin/audit-log', label: 'Audit log' },
];
const PUBLIC_LINKS = [
  { to: '/models', label: 'Models' },
  { to: '/providers', label: 'Providers' },
  { to: '/rankings', label: 'Rankings' },
];

/** The frame around every page: navigation, theme switch, who is signed in. */
export function AppShell() {
  const { user } = useSession();
  const [theme, setTheme] = useTheme();
  const [menuOpen, setMenuOpen] = useState(false);
  const queryClient = useQueryClient();
  const navigate = useNavigate();

  const leave = async () => {
    await signOut().catch(() => undefined);
    await refreshSession(queryClient);
    navigate('/sign-in');
  };

  const links = (items: { to: string; label: string; end?: boolean }[]) =>
    items.map((item) => (
      <li key={item.to}>
        <NavLink to={item.to} end={item.end} onClick={() => setMenuOpen(false)}>
          {item.label}
        </NavLink>
      </li>
    ));

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <button
          type="button"
          className="button ghost menu-button"
          aria-expanded={menuOpen}
          aria-controls="site-nav"
          onClick={() => setMenuOpen((open) => !open)}
        >
          Menu
        </button>
        <NavLink to="/" className="brand">
          <span className="brand-mark" aria-hidden="true">
            ◆
          </span>
          LLM Gateway
        </NavLink>
        <div className="topbar-actions">
          <button
            type="button"
            className="button ghost"
            aria-label={theme === 'dark' ? 'Switch to light theme' : 'Switch to dark theme'}
            onClick={() => setTheme(theme === 'dark' ? 'light' : 'dark')}
          >
            <span aria-hidden="true">{theme === 'dark' ? '☀' : '☾'}</span>
            <span className="theme-label">{theme === 'dark' ? 'Light' : 'Dark'}</span>
          </button>
          {user ? (
            <>
              <span className="user-email muted" title={user.email}>
                {user.email}
              </span>
              <button type="button" className="button" onClick={() => void leave()}>
                Sign out
              </button>
            </>
          ) : (
            <NavLink to="/sign-in" className="button primary">
              Sign in
            </NavLink>
          )}
        </div>
      </header>
      <div className="body">
        <nav id="site-nav" className={menuOpen ? 'sidebar open' : 'sidebar'} aria-label="Console">
          <p className="nav-heading">Account</p>
          <ul>{links(ACCOUNT_LINKS)}</ul>
          <p className="nav-heading">Explore</p>
          <ul>{links(PUBLIC_LINKS)}</ul>
          {user?.role === 'admin' && (
            <>
              <p className="nav-heading">Admin</p>
              <ul>{links(ADMIN_LINKS)}</ul>
            </>
          )}
        </nav>
        <main id="main" tabIndex={-1}>
          <Outlet />
        </main>
      </div>
    </div>
  );
}

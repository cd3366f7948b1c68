import { describe, expect, it } from 'vitest';
import { parseMailSettings } from './mail-settings.js';

describe('mail settings', () => {
  it('defaults to the log mailer and a one-hour link', () => {
    expect(parseMailSettings(undefined)).toEqual({
      transport: 'log',
      from: 'LLM Gateway <no-reply@localhost>',
      smtp: null,
      passwordResetTtlSeconds: 3600,
    });
  });

  it('reads SMTP by URL or by fields, with the usual ports', () => {
    expect(
      parseMailSettings({ transport: 'smtp', smtp: { url: 'smtps://u:p@mail.example.com:465' } }).smtp,
    ).toMatchObject({
      url: 'smtps://u:p@mail.example.com:465',
    });
    expect(
      parseMailSettings({ transport: 'smtp', smtp: { host: 'mail.example.com', secure: true } }).smtp,
    ).toMatchObject({
      host: 'mail.example.com',
      port: 465,
      secure: true,
      timeoutMs: 10_000,
    });
    expect(
      parseMailSettings({ transport: 'smtp', smtp: { host: 'mail.example.com', user: 'u', password: 'p' } }).smtp,
    ).toMatchObject({ port: 587, secure: false, user: 'u', password: 'p' });
  });

  it('refuses an smtp transport without a server, unknown fields and bad values, naming the field', () => {
    expect(() => parseMailSettings({ transport: 'smtp' })).toThrow(/mail\.smtp needs url or host/);
    expect(() => parseMailSettings({ transport: 'pigeon' })).toThrow(/mail\.transport/);
    expect(() => parseMailSettings({ smtp: { host: 'x', prot: 25 } })).toThrow(
      /mail\.smtp\.prot is not a known setting/,
    );
    expect(() => parseMailSettings({ password_reset_ttl_minutes: 1 })).toThrow(/mail\.password_reset_ttl_minutes/);
  });
});

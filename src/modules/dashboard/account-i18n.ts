import type { KycStatus, UserRole } from '../../db/schema.js';
import type { Locale } from '../../web/i18n.js';

/** The home page with the team, the roles, and the account security page. */
export interface AccountMessages {
  home: {
    title: string;
    organization: string;
    kycStatus: string;
    kyc: Record<KycStatus, string>;
    environment: string;
    environments: { sandbox: string; live: string };
    switchTo: { sandbox: string; live: string };
    apiBaseUrl: string;
    yourRole: string;
    securityLink: string;
    team: string;
    status: { invited: string; active: string; disabled: string };
    invite: string;
    inviteName: string;
    inviteSubmit: string;
    role: string;
    invited: string;
    inviteErrors: { email_taken: string; not_permitted: string; invalid_email: string };
  };
  roles: Record<UserRole, string>;
  security: {
    title: string;
    twoFactor: string;
    on: string;
    off: string;
    enroll: string;
    scan: string;
    secretLabel: string;
    code: string;
    verify: string;
    recoveryHeading: string;
    recoveryNote: string;
    done: string;
    disableIntro: string;
    disable: string;
    recoveryLeft: string;
    changePassword: string;
    currentPassword: string;
    change: string;
    changed: string;
    wrongCurrent: string;
    invalidCode: string;
  };
}

const en: AccountMessages = {
  home: {
    title: 'Dashboard',
    organization: 'Organization',
    kycStatus: 'KYC status',
    kyc: { REVIEWING: 'Under review: live traffic is off', APPROVED: 'Approved' },
    environment: 'Environment',
    environments: { sandbox: 'Sandbox', live: 'Live' },
    switchTo: { sandbox: 'Switch to sandbox', live: 'Switch to live' },
    apiBaseUrl: 'API base URL',
    yourRole: 'Your role',
    securityLink: 'Account security: password and two-factor authentication',
    team: 'Team',
    status: { invited: 'Invitation pending', active: 'Active', disabled: 'Disabled' },
    invite: 'Invite a team member',
    inviteName: 'Name',
    inviteSubmit: 'Send the invitation',
    role: 'Role',
    invited: 'Invitation sent.',
    inviteErrors: {
      email_taken: 'This address already has an account and cannot be invited.',
      not_permitted: 'Your role does not allow inviting people.',
      invalid_email: 'Enter a valid e-mail address.',
    },
  },
  roles: { owner: 'Owner', admin: 'Admin', developer: 'Developer', viewer: 'Viewer' },
  security: {
    title: 'Account security',
    twoFactor: 'Two-factor authentication',
    on: 'On: signing in asks for a code of your authenticator app.',
    off: 'Off: signing in asks for your password only.',
    enroll: 'Set up two-factor authentication',
    scan: 'Scan this QR code with your authenticator app, then enter the 6-digit code it shows.',
    secretLabel: 'Or type this key',
    code: 'Code',
    verify: 'Turn on',
    recoveryHeading: 'Your recovery codes',
    recoveryNote:
      'Keep these codes somewhere safe. Each works once, instead of a code of the app. They are shown only now.',
    done: 'Done',
    disableIntro: 'To turn it off, enter a current code of your app or a recovery code.',
    disable: 'Turn off',
    recoveryLeft: 'Unused recovery codes: {count}',
    changePassword: 'Change your password',
    currentPassword: 'Current password',
    change: 'Change password',
    changed: 'Your password is changed. Your other sessions have ended.',
    wrongCurrent: 'This is not your current password.',
    invalidCode: 'This code is not valid or was already used.',
  },
};

const tr: AccountMessages = {
  home: {
    title: 'Panel',
    organization: 'Kuruluş',
    kycStatus: 'KYC durumu',
    kyc: { REVIEWING: 'İncelemede: canlı işlemler kapalı', APPROVED: 'Onaylandı' },
    environment: 'Ortam',
    environments: { sandbox: 'Sandbox (test)', live: 'Canlı' },
    switchTo: { sandbox: 'Sandbox ortamına geç', live: 'Canlı ortama geç' },
    apiBaseUrl: 'API adresi',
    yourRole: 'Rolünüz',
    securityLink: 'Hesap güvenliği: şifre ve iki adımlı doğrulama',
    team: 'Ekip',
    status: { invited: 'Davet bekliyor', active: 'Etkin', disabled: 'Devre dışı' },
    invite: 'Ekip üyesi davet edin',
    inviteName: 'Ad soyad',
    inviteSubmit: 'Daveti gönder',
    role: 'Rol',
    invited: 'Davet gönderildi.',
    inviteErrors: {
      email_taken: 'Bu adresin zaten bir hesabı var; davet edilemez.',
      not_permitted: 'Rolünüz davet göndermeye izin vermiyor.',
      invalid_email: 'Geçerli bir e-posta adresi girin.',
    },
  },
  roles: { owner: 'Sahip', admin: 'Yönetici', developer: 'Geliştirici', viewer: 'İzleyici' },
  security: {
    title: 'Hesap güvenliği',
    twoFactor: 'İki adımlı doğrulama',
    on: 'Açık: giriş yaparken doğrulama uygulamanızdan bir kod istenir.',
    off: 'Kapalı: giriş yaparken yalnızca şifreniz istenir.',
    enroll: 'İki adımlı doğrulamayı kur',
    scan: 'Bu QR kodunu doğrulama uygulamanızla tarayın, ardından gösterdiği 6 haneli kodu girin.',
    secretLabel: 'Ya da bu anahtarı yazın',
    code: 'Kod',
    verify: 'Aç',
    recoveryHeading: 'Kurtarma kodlarınız',
    recoveryNote:
      'Bu kodları güvenli bir yerde saklayın. Her biri uygulama kodu yerine bir kez çalışır. Yalnızca şimdi gösterilirler.',
    done: 'Tamam',
    disableIntro: 'Kapatmak için uygulamanızdaki güncel kodu ya da bir kurtarma kodunu girin.',
    disable: 'Kapat',
    recoveryLeft: 'Kullanılmamış kurtarma kodu: {count}',
    changePassword: 'Şifrenizi değiştirin',
    currentPassword: 'Mevcut şifre',
    change: 'Şifreyi değiştir',
    changed: 'Şifreniz değiştirildi. Diğer oturumlarınız kapatıldı.',
    wrongCurrent: 'Bu, mevcut şifreniz değil.',
    invalidCode: 'Bu kod geçersiz ya da daha önce kullanılmış.',
  },
};

export const ACCOUNT_MESSAGES: Record<Locale, AccountMessages> = { en, tr };

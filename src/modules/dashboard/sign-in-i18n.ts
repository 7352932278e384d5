import type { Locale } from '../../web/i18n.js';

/** The anonymous pages: sign in, the second factor, the e-mailed links that set a password. */
export interface SignInMessages {
  login: {
    title: string;
    submit: string;
    forgot: string;
    invalid: string;
    signedOut: string;
    /** `{seconds}`: the wait before the next attempt is checked. */
    throttled: string;
    throttledOne: string;
    expired: string;
    passwordChanged: string;
  };
  mfa: { title: string; intro: string; code: string; submit: string; invalid: string };
  activation: {
    title: string;
    intro: string;
    submit: string;
    doneTitle: string;
    keyHeading: string;
    keyOnce: string;
    kycNote: string;
    continue: string;
  };
  invitation: { title: string; intro: string; submit: string; doneTitle: string; doneBody: string };
  link: { usedTitle: string; usedBody: string; invalidTitle: string; invalidBody: string };
  forgot: { title: string; intro: string; submit: string; sent: string };
  reset: { title: string; submit: string; done: string; invalid: string };
}

const en: SignInMessages = {
  login: {
    title: 'Sign in',
    submit: 'Sign in',
    forgot: 'Forgot your password?',
    invalid:
      'The e-mail address or the password is incorrect. After 5 failed attempts, each further attempt has to wait longer.',
    signedOut: 'You are signed out.',
    throttled: 'Too many failed attempts. Wait {seconds} seconds, then try again.',
    throttledOne: 'Too many failed attempts. Wait a second, then try again.',
    expired: 'Your sign-in took too long. Please start again.',
    passwordChanged: 'Your password is set. Sign in with it.',
  },
  mfa: {
    title: 'Two-factor authentication',
    intro: 'Enter the 6-digit code of your authenticator app, or one of your recovery codes.',
    code: 'Code',
    submit: 'Verify',
    invalid: 'This code is not valid or was already used.',
  },
  activation: {
    title: 'Activate your account',
    intro: 'Choose the dashboard password of {email} for {organization}.',
    submit: 'Set password and activate',
    doneTitle: 'Your account is active',
    keyHeading: 'Your live API key',
    keyOnce:
      'This is the only time this key is shown. Copy it now into your secret store: we keep only a hash and cannot show it again.',
    kycNote: 'Live traffic stays off until your KYC review is approved.',
    continue: 'Continue to sign in',
  },
  invitation: {
    title: 'Join {organization}',
    intro: 'You are invited to the {organization} dashboard as {role} ({email}). Choose your password.',
    submit: 'Accept the invitation',
    doneTitle: 'Welcome aboard',
    doneBody: 'Your account is ready. Sign in with your e-mail address and password.',
  },
  link: {
    usedTitle: 'This link was already used',
    usedBody:
      'Each link works once. Sign in with your password, or ask for a password reset if you do not know it.',
    invalidTitle: 'This link is not valid',
    invalidBody:
      'The link is unknown or has expired. Activation and invitation links are valid for 72 hours, password reset links for 1 hour. Ask for a new one.',
  },
  forgot: {
    title: 'Forgot your password?',
    intro:
      'Enter the e-mail address of your account. If it has an account, we send it a link to choose a new password; the link is valid for 1 hour.',
    submit: 'Send the link',
    sent: 'If an account exists for this address, a link is on its way. It is valid for 1 hour.',
  },
  reset: {
    title: 'Choose a new password',
    submit: 'Set the new password',
    done: 'Your password is set and every session of your account has ended. Sign in with the new password.',
    invalid: 'This link is invalid, expired or already used. Ask for a new one.',
  },
};

const tr: SignInMessages = {
  login: {
    title: 'Giriş yap',
    submit: 'Giriş yap',
    forgot: 'Şifrenizi mi unuttunuz?',
    invalid:
      'E-posta adresi ya da şifre hatalı. 5 başarısız denemeden sonra her yeni deneme için daha uzun beklemeniz gerekir.',
    signedOut: 'Çıkış yaptınız.',
    throttled: 'Çok fazla başarısız deneme. {seconds} saniye bekleyip tekrar deneyin.',
    throttledOne: 'Çok fazla başarısız deneme. 1 saniye bekleyip tekrar deneyin.',
    expired: 'Girişiniz çok uzun sürdü. Lütfen baştan başlayın.',
    passwordChanged: 'Şifreniz belirlendi. Yeni şifrenizle giriş yapın.',
  },
  mfa: {
    title: 'İki adımlı doğrulama',
    intro: 'Doğrulama uygulamanızdaki 6 haneli kodu ya da kurtarma kodlarınızdan birini girin.',
    code: 'Kod',
    submit: 'Doğrula',
    invalid: 'Bu kod geçersiz ya da daha önce kullanılmış.',
  },
  activation: {
    title: 'Hesabınızı etkinleştirin',
    intro: '{organization} için {email} hesabının panel şifresini belirleyin.',
    submit: 'Şifreyi belirle ve etkinleştir',
    doneTitle: 'Hesabınız etkin',
    keyHeading: 'Canlı (live) API anahtarınız',
    keyOnce:
      'Bu anahtar yalnızca bu kez gösterilir. Şimdi kopyalayıp gizli bilgi deponuza kaydedin: biz yalnızca özetini saklarız ve tekrar gösteremeyiz.',
    kycNote: 'Canlı işlemler, KYC incelemeniz onaylanana kadar kapalıdır.',
    continue: 'Girişe devam et',
  },
  invitation: {
    title: '{organization} ekibine katılın',
    intro: '{organization} paneline {role} rolüyle davet edildiniz ({email}). Şifrenizi belirleyin.',
    submit: 'Daveti kabul et',
    doneTitle: 'Hoş geldiniz',
    doneBody: 'Hesabınız hazır. E-posta adresiniz ve şifrenizle giriş yapın.',
  },
  link: {
    usedTitle: 'Bu bağlantı zaten kullanıldı',
    usedBody:
      'Her bağlantı bir kez çalışır. Şifrenizle giriş yapın ya da şifrenizi bilmiyorsanız sıfırlama isteyin.',
    invalidTitle: 'Bu bağlantı geçerli değil',
    invalidBody:
      'Bağlantı bilinmiyor ya da süresi dolmuş. Etkinleştirme ve davet bağlantıları 72 saat, şifre sıfırlama bağlantıları 1 saat geçerlidir. Yenisini isteyin.',
  },
  forgot: {
    title: 'Şifrenizi mi unuttunuz?',
    intro:
      'Hesabınızın e-posta adresini girin. Bu adrese ait bir hesap varsa, yeni şifre belirlemek için 1 saat geçerli bir bağlantı göndeririz.',
    submit: 'Bağlantıyı gönder',
    sent: 'Bu adrese ait bir hesap varsa bağlantı yolda. Bağlantı 1 saat geçerlidir.',
  },
  reset: {
    title: 'Yeni şifre belirleyin',
    submit: 'Yeni şifreyi kaydet',
    done: 'Şifreniz belirlendi ve hesabınızın tüm oturumları kapatıldı. Yeni şifrenizle giriş yapın.',
    invalid: 'Bu bağlantı geçersiz, süresi dolmuş ya da kullanılmış. Yenisini isteyin.',
  },
};

export const SIGN_IN_MESSAGES: Record<Locale, SignInMessages> = { en, tr };

import { escapeHtml } from '../../shared/html.js';

export interface RenderedEmail {
  template: string;
  subject: string;
  text: string;
  html: string;
}

type Part = { tr: string[]; en: string[] };

/**
 * Every message carries Turkish and English, Turkish first: the application form does not tell us the
 * reader's language, and the merchant base is Turkish first.
 */
function bilingual(
  template: string,
  subject: { tr: string; en: string },
  body: Part,
  links: Array<{ url: string; tr: string; en: string }> = [],
): RenderedEmail {
  const text = [
    ...body.tr,
    ...links.map((l) => `${l.tr}: ${l.url}`),
    '',
    '---',
    '',
    ...body.en,
    ...links.map((l) => `${l.en}: ${l.url}`),
    '',
  ].join('\n');
  const paragraphs = (lines: string[]) => lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n');
  const anchor = (l: { url: string }, label: string) =>
    `<p><a href="${escapeHtml(l.url)}">${escapeHtml(label)}</a></p>`;
  const html = `<!doctype html><html><body style="font-family:system-ui,sans-serif;max-width:40rem">
<div lang="tr">${paragraphs(body.tr)}${links.map((l) => anchor(l, l.tr)).join('')}</div>
<hr>
<div lang="en">${paragraphs(body.en)}${links.map((l) => anchor(l, l.en)).join('')}</div>
</body></html>`;
  return { template, subject: `${subject.tr} / ${subject.en}`, text, html };
}

export function applicationApprovedEmail(input: {
  companyName: string;
  sandboxKey: string;
  activationUrl: string;
  dashboardUrl: string;
  sandboxApiUrl: string;
}): RenderedEmail {
  return bilingual(
    'application_approved',
    { tr: 'Başvurunuz onaylandı', en: 'Your application is approved' },
    {
      tr: [
        `${input.companyName} için üye işyeri hesabınız açıldı.`,
        `Test (sandbox) API anahtarınız: ${input.sandboxKey}`,
        `Sandbox API adresi: ${input.sandboxApiUrl}`,
        'Aşağıdaki tek kullanımlık bağlantı 72 saat geçerlidir: panel şifrenizi belirler ve canlı (live) API anahtarınızı bir kez gösterir.',
        'Canlı işlemler, KYC incelemeniz onaylanana kadar kapalıdır.',
        `Panel: ${input.dashboardUrl}`,
      ],
      en: [
        `Your merchant account for ${input.companyName} is open.`,
        `Your sandbox API key: ${input.sandboxKey}`,
        `Sandbox API: ${input.sandboxApiUrl}`,
        'The single-use link below is valid for 72 hours: it sets your dashboard password and shows your live API key once.',
        'Live traffic stays off until your KYC review is approved.',
        `Dashboard: ${input.dashboardUrl}`,
      ],
    },
    [{ url: input.activationUrl, tr: 'Hesabınızı etkinleştirin', en: 'Activate your account' }],
  );
}

export function applicationRejectedEmail(input: { companyName: string; reason: string }): RenderedEmail {
  return bilingual(
    'application_rejected',
    { tr: 'Başvurunuz hakkında', en: 'About your application' },
    {
      tr: [`${input.companyName} başvurunuzu bu aşamada kabul edemiyoruz.`, `Gerekçe: ${input.reason}`],
      en: [
        `We cannot accept the application of ${input.companyName} at this stage.`,
        `Reason: ${input.reason}`,
      ],
    },
  );
}

export function passwordResetEmail(input: { url: string }): RenderedEmail {
  return bilingual(
    'password_reset',
    { tr: 'Şifre sıfırlama', en: 'Password reset' },
    {
      tr: [
        'Şifrenizi sıfırlamak için bağlantıyı 1 saat içinde kullanın. Bu isteği siz yapmadıysanız bu e-postayı yok sayın.',
      ],
      en: [
        'Use the link within 1 hour to reset your password. If you did not ask for this, ignore this e-mail.',
      ],
    },
    [{ url: input.url, tr: 'Şifreyi sıfırla', en: 'Reset password' }],
  );
}

export function invitationEmail(input: {
  organizationName: string;
  role: string;
  url: string;
}): RenderedEmail {
  return bilingual(
    'invitation',
    { tr: 'Panele davet', en: 'Dashboard invitation' },
    {
      tr: [
        `${input.organizationName} panelinize ${input.role} rolüyle davet edildiniz. Bağlantı 72 saat geçerlidir.`,
      ],
      en: [
        `You are invited to the ${input.organizationName} dashboard as ${input.role}. The link is valid for 72 hours.`,
      ],
    },
    [{ url: input.url, tr: 'Daveti kabul et', en: 'Accept the invitation' }],
  );
}

export function webhookEndpointDisabledEmail(input: {
  url: string;
  endpointId: string;
  environment: 'sandbox' | 'live';
  failingSince: Date;
  dashboardUrl: string;
}): RenderedEmail {
  const since = input.failingSince.toISOString();
  const mode = { tr: input.environment === 'live' ? 'canlı' : 'sandbox', en: input.environment };
  return bilingual(
    'webhook_endpoint_disabled',
    { tr: 'Webhook adresiniz devre dışı bırakıldı', en: 'Your webhook endpoint was disabled' },
    {
      tr: [
        `${input.url} webhook adresinize (${input.endpointId}, ${mode.tr}) ${since} tarihinden beri yapılan ` +
          'gönderimlerin hiçbiri 200 yanıtı almadı; adres 5 günlük hatanın ardından devre dışı bırakıldı.',
        'Alıcınızı düzelttikten sonra adresi panelden veya API üzerinden yeniden etkinleştirin; bekleyen ' +
          'gönderimler kaldığı yerden devam eder.',
      ],
      en: [
        `No delivery to your webhook endpoint ${input.url} (${input.endpointId}, ${mode.en}) has been ` +
          `answered with 200 since ${since}; it was disabled after 5 days of failures.`,
        'Once your receiver is fixed, enable the endpoint again in the dashboard or through the API; waiting ' +
          'deliveries resume.',
      ],
    },
    [{ url: input.dashboardUrl, tr: 'Panele git', en: 'Open the dashboard' }],
  );
}

/** The steps of a wallet change that every owner and admin hears of. */
export type WalletChangeStep = 'requested' | 'confirmed' | 'applied';

export function walletChangeEmail(input: {
  step: WalletChangeStep;
  kind: 'add' | 'make_default';
  makeDefault: boolean;
  network: 'tron' | 'ethereum';
  address: string;
  changeId: string;
  /** Owners only, at the request: the single-use confirmation link. */
  confirmUrl?: string;
  confirmExpiresAt?: Date;
  effectiveAt?: Date;
  dashboardUrl: string;
}): RenderedEmail {
  const net = input.network === 'tron' ? 'TRON (TRC-20)' : 'Ethereum (ERC-20)';
  const what = {
    tr:
      input.kind === 'add'
        ? `canlı ödeme cüzdanı ekleme${input.makeDefault ? ' (varsayılan olarak)' : ''}`
        : 'varsayılan canlı ödeme cüzdanını değiştirme',
    en:
      input.kind === 'add'
        ? `adding a live payout wallet${input.makeDefault ? ' (as the default)' : ''}`
        : 'changing the default live payout wallet',
  };
  const subject = {
    requested: { tr: 'Cüzdan değişikliği onay bekliyor', en: 'A wallet change awaits confirmation' },
    confirmed: { tr: 'Cüzdan değişikliği onaylandı', en: 'A wallet change was confirmed' },
    applied: { tr: 'Cüzdan değişikliği yürürlüğe girdi', en: 'A wallet change took effect' },
  }[input.step];
  const target = { tr: `${net} adresi ${input.address}`, en: `${net} address ${input.address}` };
  const effective = input.effectiveAt?.toISOString() ?? '';
  const expires = input.confirmExpiresAt?.toISOString() ?? '';
  const lines = {
    requested: {
      tr: [
        `Hesabınızda ${what.tr} istendi: ${target.tr} (${input.changeId}).`,
        input.confirmUrl
          ? `Bir hesap sahibi panelde oturum açıp aşağıdaki tek kullanımlık bağlantıyla ${expires} tarihine kadar onaylamazsa değişiklik geçersiz olur; 2FA açıksa kod da istenir.`
          : 'Hesap sahipleri onay bağlantısını ayrıca aldı.',
        'Bu isteği siz yapmadıysanız hemen panelden iptal edin ve destek ekibine yazın.',
      ],
      en: [
        `Someone asked for ${what.en}: ${target.en} (${input.changeId}).`,
        input.confirmUrl
          ? `Unless an owner, signed in to the dashboard, confirms it through the single-use link below by ${expires}, it lapses; with 2FA on, a code is asked too.`
          : 'The owners received the confirmation link.',
        'If you did not ask for this, cancel it in the dashboard now and contact support.',
      ],
    },
    confirmed: {
      tr: [
        `${what.tr} onaylandı: ${target.tr} (${input.changeId}).`,
        `Bekleme süresinin ardından ${effective} tarihinde yürürlüğe girer; o zamana kadar ödemeler önceki varsayılan cüzdana gider.`,
        'Bu değişikliği tanımıyorsanız bu süre içinde panelden iptal edin.',
      ],
      en: [
        `The change (${what.en}) was confirmed: ${target.en} (${input.changeId}).`,
        `It takes effect after the cool-down, at ${effective}; until then payouts go to the previous default wallet.`,
        'If you do not recognise it, cancel it in the dashboard before then.',
      ],
    },
    applied: {
      tr: [`${what.tr} yürürlüğe girdi: ${target.tr} (${input.changeId}).`],
      en: [`The change (${what.en}) took effect: ${target.en} (${input.changeId}).`],
    },
  }[input.step];
  const links = input.confirmUrl
    ? [{ url: input.confirmUrl, tr: 'Değişikliği onayla', en: 'Confirm the change' }]
    : [{ url: input.dashboardUrl, tr: 'Panele git', en: 'Open the dashboard' }];
  return bilingual(`wallet_change_${input.step}`, subject, lines, links);
}

/**
 * A settlement batch could not pay out automatically, so the funds stay in the available
 * balance and go with a later batch. Sent once per reason, not every business day.
 */
export function settlementFundsWaitingEmail(input: {
  reason: 'no_default_wallet' | 'below_minimum';
  environment: 'sandbox' | 'live';
  businessDate: string;
  /** TRY minor units now available. */
  available: string;
  /** The network minimum in TRY minor units (below_minimum). */
  minimum?: string;
  dashboardUrl: string;
}): RenderedEmail {
  const lira = (minorUnits: string) => {
    const value = BigInt(minorUnits);
    const sign = value < 0n ? '-' : '';
    const abs = value < 0n ? -value : value;
    return `${sign}${(abs / 100n).toString()}.${(abs % 100n).toString().padStart(2, '0')} TRY`;
  };
  const mode = { tr: input.environment === 'live' ? 'canlı' : 'sandbox', en: input.environment };
  const why =
    input.reason === 'no_default_wallet'
      ? {
          tr: `${mode.tr} ortamında etkin bir varsayılan ödeme cüzdanınız yok.`,
          en: `You have no active default payout wallet in ${mode.en}.`,
        }
      : {
          tr: `Bakiyeniz ağın en küçük ödeme tutarının (${lira(input.minimum ?? '0')}) altında.`,
          en: `Your balance is below the network's smallest payout (${lira(input.minimum ?? '0')}).`,
        };
  return bilingual(
    'settlement_funds_waiting',
    { tr: 'Ödemeniz bekliyor', en: 'Your payout is waiting' },
    {
      tr: [
        `${input.businessDate} tarihli mutabakat ${lira(input.available)} tutarını kullanılabilir bakiyenize ` +
          `aktardı, ancak otomatik ödeme yapılamadı: ${why.tr}`,
        'Tutar bakiyenizde kalır ve sorun giderildikten sonraki ilk mutabakatla ödenir; dilerseniz API ' +
          'üzerinden elle ödeme de oluşturabilirsiniz.',
      ],
      en: [
        `The settlement of ${input.businessDate} made ${lira(input.available)} available, but no automatic ` +
          `payout could be made: ${why.en}`,
        'The funds stay in your available balance and go with the first settlement after this is resolved; ' +
          'you can also create a payout through the API.',
      ],
    },
    [{ url: input.dashboardUrl, tr: 'Panele git', en: 'Open the dashboard' }],
  );
}

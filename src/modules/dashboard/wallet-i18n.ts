import type { Locale } from '../../web/i18n.js';

/** The wallet pages' words, Turkish and English. */
export interface WalletMessages {
  title: string;
  intro: string;
  sandboxNote: string;
  liveNote: string;
  none: string;
  network: string;
  address: string;
  label: string;
  status: string;
  isDefault: string;
  statuses: Record<'pending' | 'active' | 'archived' | 'canceled', string>;
  changeStatuses: Record<'awaiting_confirmation' | 'cooling_down', string>;
  kinds: Record<'add' | 'make_default', string>;
  add: string;
  makeDefaultBox: string;
  submit: string;
  makeDefault: string;
  archive: string;
  cancelChange: string;
  changes: string;
  noChanges: string;
  effectiveAt: string;
  expiresAt: string;
  readOnly: string;
  notices: Record<'created' | 'requested' | 'default' | 'archived' | 'canceled', string>;
  errors: Record<string, string>;
  confirmTitle: string;
  confirmIntro: string;
  code: string;
  codeHint: string;
  confirm: string;
  confirmedTitle: string;
  confirmedBody: string;
  appliedBody: string;
}

export const WALLET_MESSAGES: Record<Locale, WalletMessages> = {
  en: {
    title: 'Wallets',
    intro: 'Where payouts go: USDT addresses on TRON (TRC-20) or Ethereum (ERC-20).',
    sandboxNote:
      'Sandbox wallets take effect at once and never receive real money: only the sandbox chain pays them.',
    liveNote:
      'A new live wallet, or a change of the default, takes effect only after an owner confirms it from the e-mailed link (with a 2FA code when on) and a cool-down passes. Until then payouts go to the previous default.',
    none: 'No wallets yet.',
    network: 'Network',
    address: 'Address',
    label: 'Label',
    status: 'Status',
    isDefault: 'Default',
    statuses: { pending: 'Pending', active: 'Active', archived: 'Archived', canceled: 'Canceled' },
    changeStatuses: {
      awaiting_confirmation: 'Awaiting an owner’s confirmation',
      cooling_down: 'Cooling down',
    },
    kinds: { add: 'Add a wallet', make_default: 'Change the default' },
    add: 'Add a wallet',
    makeDefaultBox: 'Make it the default wallet',
    submit: 'Add wallet',
    makeDefault: 'Make default',
    archive: 'Archive',
    cancelChange: 'Cancel change',
    changes: 'Open changes',
    noChanges: 'No open changes.',
    effectiveAt: 'Takes effect',
    expiresAt: 'Link expires',
    readOnly: 'Only owners and admins can change wallets.',
    notices: {
      created: 'The wallet was added.',
      requested: 'The change was requested: every owner received a confirmation link by e-mail.',
      default: 'The default wallet changed.',
      archived: 'The wallet was archived.',
      canceled: 'The change was canceled.',
    },
    errors: {
      invalid_wallet_address: 'This is not a valid address for the network.',
      wallet_exists: 'This address is already one of your wallets.',
      wallet_not_active: 'Only an active wallet can do this.',
      default_not_archivable: 'The default wallet cannot be archived; make another the default first.',
      change_open: 'This wallet already has an open change.',
      change_not_found: 'No such change.',
      change_closed: 'This change is no longer open.',
      wallet_not_found: 'No such wallet.',
      not_permitted: 'Your role cannot do this.',
      invalid_link: 'This confirmation link is invalid or has expired.',
      used_link: 'This change was already confirmed, canceled or has expired.',
      other_organization: 'This change belongs to another organization.',
      not_owner: 'Only an owner can confirm a wallet change.',
      code_required: 'Enter the code from your authenticator app.',
      wrong_code: 'The code is wrong or was already used.',
    },
    confirmTitle: 'Confirm a wallet change',
    confirmIntro:
      'Check the address character by character before you confirm. If you did not ask for this, cancel it.',
    code: 'Authenticator code',
    codeHint: 'The 6-digit code of your authenticator app (or a recovery code).',
    confirm: 'Confirm the change',
    confirmedTitle: 'Change confirmed',
    confirmedBody:
      'The change takes effect at {effectiveAt}. Until then payouts go to the previous default wallet.',
    appliedBody: 'The change has taken effect.',
  },
  tr: {
    title: 'Cüzdanlar',
    intro: 'Ödemelerin gönderildiği yer: TRON (TRC-20) veya Ethereum (ERC-20) üzerindeki USDT adresleri.',
    sandboxNote:
      'Sandbox cüzdanları hemen geçerli olur ve hiçbir zaman gerçek para almaz: onlara yalnızca sandbox zinciri öder.',
    liveNote:
      'Yeni bir canlı cüzdan veya varsayılanın değişmesi, bir hesap sahibi e-postadaki bağlantıyla onaylayınca (2FA açıksa kodla) ve bekleme süresi geçince geçerli olur. O zamana kadar ödemeler önceki varsayılana gider.',
    none: 'Henüz cüzdan yok.',
    network: 'Ağ',
    address: 'Adres',
    label: 'Etiket',
    status: 'Durum',
    isDefault: 'Varsayılan',
    statuses: { pending: 'Beklemede', active: 'Etkin', archived: 'Arşivlendi', canceled: 'İptal edildi' },
    changeStatuses: {
      awaiting_confirmation: 'Hesap sahibinin onayını bekliyor',
      cooling_down: 'Bekleme süresinde',
    },
    kinds: { add: 'Cüzdan ekleme', make_default: 'Varsayılanı değiştirme' },
    add: 'Cüzdan ekle',
    makeDefaultBox: 'Varsayılan cüzdan yap',
    submit: 'Cüzdanı ekle',
    makeDefault: 'Varsayılan yap',
    archive: 'Arşivle',
    cancelChange: 'Değişikliği iptal et',
    changes: 'Açık değişiklikler',
    noChanges: 'Açık değişiklik yok.',
    effectiveAt: 'Geçerlilik',
    expiresAt: 'Bağlantının sonu',
    readOnly: 'Cüzdanları yalnızca hesap sahipleri ve yöneticiler değiştirebilir.',
    notices: {
      created: 'Cüzdan eklendi.',
      requested: 'Değişiklik istendi: her hesap sahibine e-postayla onay bağlantısı gönderildi.',
      default: 'Varsayılan cüzdan değişti.',
      archived: 'Cüzdan arşivlendi.',
      canceled: 'Değişiklik iptal edildi.',
    },
    errors: {
      invalid_wallet_address: 'Bu, ağ için geçerli bir adres değil.',
      wallet_exists: 'Bu adres zaten cüzdanlarınızdan biri.',
      wallet_not_active: 'Bunu yalnızca etkin bir cüzdan yapabilir.',
      default_not_archivable: 'Varsayılan cüzdan arşivlenemez; önce başka bir cüzdanı varsayılan yapın.',
      change_open: 'Bu cüzdanın zaten açık bir değişikliği var.',
      change_not_found: 'Böyle bir değişiklik yok.',
      change_closed: 'Bu değişiklik artık açık değil.',
      wallet_not_found: 'Böyle bir cüzdan yok.',
      not_permitted: 'Rolünüz bunu yapamaz.',
      invalid_link: 'Bu onay bağlantısı geçersiz veya süresi dolmuş.',
      used_link: 'Bu değişiklik zaten onaylandı, iptal edildi veya süresi doldu.',
      other_organization: 'Bu değişiklik başka bir kuruluşa ait.',
      not_owner: 'Cüzdan değişikliğini yalnızca bir hesap sahibi onaylayabilir.',
      code_required: 'Doğrulama uygulamanızdaki kodu girin.',
      wrong_code: 'Kod yanlış veya daha önce kullanılmış.',
    },
    confirmTitle: 'Cüzdan değişikliğini onaylayın',
    confirmIntro:
      'Onaylamadan önce adresi karakter karakter kontrol edin. Bu isteği siz yapmadıysanız iptal edin.',
    code: 'Doğrulama kodu',
    codeHint: 'Doğrulama uygulamanızdaki 6 haneli kod (veya bir kurtarma kodu).',
    confirm: 'Değişikliği onayla',
    confirmedTitle: 'Değişiklik onaylandı',
    confirmedBody:
      'Değişiklik {effectiveAt} tarihinde geçerli olur. O zamana kadar ödemeler önceki varsayılan cüzdana gider.',
    appliedBody: 'Değişiklik geçerli oldu.',
  },
};

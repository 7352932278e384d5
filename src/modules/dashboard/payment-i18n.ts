import type { Locale } from '../../web/i18n.js';

type ChargeStatus = 'pending' | 'succeeded' | 'failed' | 'expired';
type Method = 'bank_transfer' | 'credit_card_tr' | 'credit_card_international';
type Sort = 'newest' | 'oldest' | 'amount_desc' | 'amount_asc';

/** A problem with one filter of the Payments list, shown next to the form. */
export type FilterProblem =
  | 'status'
  | 'method'
  | 'createdFrom'
  | 'createdTo'
  | 'dateOrder'
  | 'amountMin'
  | 'amountMax'
  | 'amountOrder'
  | 'reference'
  | 'email'
  | 'refunded'
  | 'search'
  | 'sort'
  | 'cursor';

/** Why a refund from the charge page was not made. */
export type RefundProblem =
  | 'amount'
  | 'exceeds'
  | 'nothing_left'
  | 'not_refundable'
  | 'disputed'
  | 'rejected'
  | 'unavailable'
  | 'not_configured';

/** The Payments pages' words, Turkish and English. */
export interface PaymentMessages {
  title: string;
  /** `{environment}`: the session's environment. */
  intro: string;
  filters: string;
  /** The search box over the list. */
  searchLabel: string;
  searchHint: string;
  searchButton: string;
  any: string;
  filter: string;
  clear: string;
  fields: {
    status: string;
    method: string;
    createdFrom: string;
    createdTo: string;
    amountMin: string;
    amountMax: string;
    reference: string;
    email: string;
    refunded: string;
    sort: string;
  };
  /** The refund filter's choices (a refunded charge's status stays `succeeded`). */
  refundFilters: Record<'any' | 'full' | 'partial' | 'none', string>;
  /** Beside a succeeded charge's status: what refunds gave back. */
  refundStates: Record<'full' | 'partial', string>;
  /** Why a refunded charge still says Succeeded. */
  refundStateHint: string;
  /** How an amount is typed: `{example}` in the page's language. */
  amountHint: string;
  sorts: Record<Sort, string>;
  statuses: Record<ChargeStatus, string>;
  methods: Record<Method, string>;
  filterProblems: Record<FilterProblem, string>;
  none: string;
  noneFiltered: string;
  next: string;
  firstPage: string;
  columns: {
    id: string;
    amount: string;
    status: string;
    method: string;
    reference: string;
    customer: string;
    createdAt: string;
  };
  // The charge page.
  backToList: string;
  summary: string;
  details: {
    id: string;
    amount: string;
    refunded: string;
    refundable: string;
    fee: string;
    net: string;
    card: string;
    customerName: string;
    customerEmail: string;
    customerPhone: string;
    customerReference: string;
    expiresAt: string;
    failure: string;
  };
  /** `{brand}`, `{last4}`. */
  cardShown: string;
  feeNotYet: string;
  refund: {
    heading: string;
    amountLabel: string;
    /** `{amount}`: what remains refundable. */
    amountHint: string;
    start: string;
    confirmTitle: string;
    /** `{amount}`, `{charge}`, `{total}`. */
    confirmBody: string;
    /** `{fee}`: the charge's card fee; `{amount}`: this refund. */
    feeKept: string;
    /** On the charge page: `{fee}`, `{amount}` (the charge), `{net}` (what it credited). */
    feeKeptOnCharge: string;
    confirm: string;
    cancel: string;
    notPermitted: string;
    problems: Record<RefundProblem, string>;
  };
  notices: {
    refunded: string;
    refundPending: string;
    retried: string;
  };
  timeline: {
    heading: string;
    created: string;
    /** `{count}`. */
    attempts: string;
    /** `{brand}`, `{last4}`. */
    lastCard: string;
    /** One card attempt: `{number}`, then its outcome, the card and the decline's code. */
    attempt: string;
    attemptOutcomes: Record<'succeeded' | 'declined' | 'challenge' | 'error', string>;
    /** `{brand}`, `{last4}`; a card whose brand the acquirer did not name has `{last4}` only. */
    attemptCard: string;
    attemptCardNoBrand: string;
    /** `{code}`. */
    declineCode: string;
    threeDs: string;
    /** `{type}`, `{outcome}`. */
    notification: string;
    /** `{amount}`, `{status}`. */
    refund: string;
    succeeded: string;
    failed: string;
    expired: string;
    expires: string;
  };
  refundStatuses: Record<'pending' | 'succeeded' | 'failed', string>;
  refunds: string;
  noRefunds: string;
  /** `{count}`: when the payment has more refunds than its page lists. */
  moreRefunds: string;
  events: string;
  noEvents: string;
  deliveries: string;
  noDeliveries: string;
  deliveryStatuses: Record<'pending' | 'succeeded' | 'failed', string>;
  /** `{count}`. */
  deliveryAttempts: string;
  retry: string;
  ledger: string;
  /** How the lines are signed: from the merchant's side. */
  ledgerHint: string;
  noLedger: string;
  ledgerKinds: Record<string, string>;
  accounts: Record<string, string>;
  /** A line's words by `<entry kind>:<account>`; others are "kind · account". */
  moneyLines: Record<string, string>;
  notPermitted: string;
}

export const PAYMENT_MESSAGES: Record<Locale, PaymentMessages> = {
  en: {
    title: 'Payments',
    intro: 'The charges your integration made through the API. {environment} charges.',
    filters: 'Filters',
    searchLabel: 'Search',
    searchHint:
      'A charge id (ch_…), the card’s last four digits, a customer’s e-mail or your reference, exactly.',
    searchButton: 'Search',
    any: 'Any',
    filter: 'Show',
    clear: 'Clear the filters',
    fields: {
      status: 'Status',
      method: 'Method',
      createdFrom: 'Created from',
      createdTo: 'Created to',
      amountMin: 'Amount from',
      amountMax: 'Amount to',
      reference: 'Reference',
      email: 'Customer e-mail',
      refunded: 'Refunds',
      sort: 'Order',
    },
    refundFilters: {
      any: 'Refunded (in full or in part)',
      full: 'Refunded in full',
      partial: 'Partially refunded',
      none: 'Not refunded',
    },
    refundStates: { full: 'Refunded in full', partial: 'Partially refunded' },
    refundStateHint:
      'A refund does not change the status: the customer paid, so the payment stays Succeeded; the refunded amount is shown beside it.',
    amountHint: 'In TRY, like {example}.',
    sorts: {
      newest: 'Newest first',
      oldest: 'Oldest first',
      amount_desc: 'Largest amount first',
      amount_asc: 'Smallest amount first',
    },
    statuses: { pending: 'Pending', succeeded: 'Succeeded', failed: 'Failed', expired: 'Expired' },
    methods: {
      bank_transfer: 'Bank transfer',
      credit_card_tr: 'Card (Turkey)',
      credit_card_international: 'Card (international)',
    },
    filterProblems: {
      status: 'Choose a status from the list.',
      method: 'Choose a method from the list.',
      createdFrom: 'The first day is not a date (YYYY-MM-DD).',
      createdTo: 'The last day is not a date (YYYY-MM-DD).',
      dateOrder: 'The first day is after the last day.',
      amountMin: 'The smallest amount is not an amount in TRY, like 125.50.',
      amountMax: 'The largest amount is not an amount in TRY, like 125.50.',
      amountOrder: 'The smallest amount is more than the largest.',
      reference: 'The reference is longer than 120 characters.',
      email: 'The e-mail address is longer than 254 characters.',
      refunded: 'Choose a refund filter from the list.',
      search: 'Search for at most 254 characters.',
      sort: 'Choose an order from the list.',
      cursor: 'That page of the list is not available any more; start from the first page.',
    },
    none: 'No payments yet.',
    noneFiltered: 'No payment matches these filters.',
    next: 'Next page',
    firstPage: 'First page',
    columns: {
      id: 'Charge',
      amount: 'Amount',
      status: 'Status',
      method: 'Method',
      reference: 'Reference',
      customer: 'Customer',
      createdAt: 'Created',
    },
    backToList: 'All payments',
    summary: 'Summary',
    details: {
      id: 'Charge',
      amount: 'Amount',
      refunded: 'Refunded',
      refundable: 'Refundable',
      fee: 'Fee',
      net: 'Net',
      card: 'Card',
      customerName: 'Customer',
      customerEmail: 'E-mail',
      customerPhone: 'Phone',
      customerReference: 'Customer reference',
      expiresAt: 'Checkout expires',
      failure: 'Reason',
    },
    cardShown: '{brand} •••• {last4}',
    feeNotYet: 'Not charged (the payment has not succeeded)',
    refund: {
      heading: 'Refund',
      amountLabel: 'Amount to refund',
      amountHint: 'Leave empty to refund all that remains: {amount}.',
      start: 'Refund…',
      confirmTitle: 'Confirm the refund',
      confirmBody: 'Refund {amount} of {total} to the customer of {charge}?',
      feeKept:
        'The card fee of {fee} is not returned: this refund takes {amount} from your balance. A refund cannot be undone.',
      feeKeptOnCharge:
        'A refund gives the customer back what you refund, and the card fee of {fee} is not returned: refunding all {amount} takes {amount} from your balance, which this payment credited {net}.',
      confirm: 'Refund now',
      cancel: 'Cancel',
      notPermitted: 'Your role cannot refund payments. Ask an owner or an admin.',
      problems: {
        amount: 'Write the amount in TRY, like 125.50, more than zero.',
        exceeds: 'That is more than remains refundable ({amount}).',
        nothing_left: 'Nothing remains to refund on this payment.',
        not_refundable: 'Only a succeeded payment can be refunded.',
        disputed: 'Disputes hold part of this payment: at most {amount} can still be refunded.',
        rejected: 'The acquirer refused the refund: {message}',
        unavailable: 'The acquirer cannot be reached; the refund stays pending and is retried.',
        not_configured: 'No acquirer is configured for this environment.',
      },
    },
    notices: {
      refunded: 'The refund succeeded.',
      refundPending:
        'The acquirer could not be reached: the refund is pending and is retried in the background.',
      retried: 'The webhook delivery is due again now.',
    },
    timeline: {
      heading: 'Timeline',
      created: 'Created',
      attempts: 'Card attempts: {count}',
      lastCard: 'Last card: {brand} •••• {last4}',
      attempt: 'Card attempt {number}',
      attemptOutcomes: {
        succeeded: 'approved',
        declined: 'declined',
        challenge: '3-D Secure challenge',
        error: 'the acquirer could not be reached',
      },
      attemptCard: '{brand} •••• {last4}',
      attemptCardNoBrand: '•••• {last4}',
      declineCode: 'code {code}',
      threeDs: '3-D Secure: waiting for the customer to authenticate',
      notification: 'Acquirer notification {type} ({outcome})',
      refund: 'Refund of {amount}: {status}',
      succeeded: 'Succeeded',
      failed: 'Failed',
      expired: 'Expired',
      expires: 'Checkout expires unless paid',
    },
    refundStatuses: { pending: 'Pending', succeeded: 'Succeeded', failed: 'Failed' },
    refunds: 'Refunds',
    noRefunds: 'No refunds.',
    moreRefunds:
      'The {count} newest refunds are listed; GET /v1/charges/{id}/refunds pages through all of them.',
    events: 'Events',
    noEvents: 'No events yet.',
    deliveries: 'Webhook deliveries',
    noDeliveries: 'No webhook deliveries.',
    deliveryStatuses: { pending: 'Pending', succeeded: 'Delivered', failed: 'Failed' },
    deliveryAttempts: '{count, plural, one {# attempt} other {# attempts}}',
    retry: 'Retry now',
    ledger: 'Ledger lines',
    ledgerHint: 'From your side: + adds to your balance, - takes from it.',
    noLedger: 'No ledger lines yet: a charge is booked when it succeeds.',
    ledgerKinds: { charge_succeeded: 'Payment', refund: 'Refund' },
    accounts: {
      acquirer_clearing: 'Acquirer clearing',
      merchant_pending: 'Your pending balance',
      fee_revenue: 'Fee',
    },
    moneyLines: {
      'charge_succeeded:acquirer_clearing': 'Payment · paid by the customer',
      'charge_succeeded:fee_revenue': 'Payment · card fee',
      'charge_succeeded:merchant_pending': 'Payment · to your pending balance',
      'refund:acquirer_clearing': 'Refund · back to the customer',
      'refund:merchant_pending': 'Refund · from your pending balance',
    },
    notPermitted: 'Your role cannot see payments.',
  },
  tr: {
    title: 'Ödemeler',
    intro: 'Entegrasyonunuzun API ile oluşturduğu ödemeler. {environment} ödemeleri.',
    filters: 'Filtreler',
    searchLabel: 'Ara',
    searchHint:
      'Bir ödeme numarası (ch_…), kartın son dört hanesi, bir müşterinin e-postası veya referansınız, tam olarak.',
    searchButton: 'Ara',
    any: 'Tümü',
    filter: 'Göster',
    clear: 'Filtreleri temizle',
    fields: {
      status: 'Durum',
      method: 'Yöntem',
      createdFrom: 'Başlangıç günü',
      createdTo: 'Bitiş günü',
      amountMin: 'En az tutar',
      amountMax: 'En çok tutar',
      reference: 'Referans',
      email: 'Müşteri e-postası',
      refunded: 'İadeler',
      sort: 'Sıralama',
    },
    refundFilters: {
      any: 'İade edilmiş (tamamen veya kısmen)',
      full: 'Tamamen iade edilmiş',
      partial: 'Kısmen iade edilmiş',
      none: 'İade edilmemiş',
    },
    refundStates: { full: 'Tamamen iade edildi', partial: 'Kısmen iade edildi' },
    refundStateHint:
      'İade durumu değiştirmez: müşteri ödedi, bu yüzden ödeme Başarılı kalır; iade edilen tutar yanında gösterilir.',
    amountHint: 'TRY olarak, örneğin {example}.',
    sorts: {
      newest: 'En yeniler önce',
      oldest: 'En eskiler önce',
      amount_desc: 'En büyük tutar önce',
      amount_asc: 'En küçük tutar önce',
    },
    statuses: { pending: 'Beklemede', succeeded: 'Başarılı', failed: 'Başarısız', expired: 'Süresi doldu' },
    methods: {
      bank_transfer: 'Havale/EFT',
      credit_card_tr: 'Kart (Türkiye)',
      credit_card_international: 'Kart (yurt dışı)',
    },
    filterProblems: {
      status: 'Listeden bir durum seçin.',
      method: 'Listeden bir yöntem seçin.',
      createdFrom: 'Başlangıç günü bir tarih değil (YYYY-AA-GG).',
      createdTo: 'Bitiş günü bir tarih değil (YYYY-AA-GG).',
      dateOrder: 'Başlangıç günü bitiş gününden sonra.',
      amountMin: 'En az tutar, 125,50 gibi bir TRY tutarı değil.',
      amountMax: 'En çok tutar, 125,50 gibi bir TRY tutarı değil.',
      amountOrder: 'En az tutar en çok tutardan büyük.',
      reference: 'Referans 120 karakterden uzun.',
      email: 'E-posta adresi 254 karakterden uzun.',
      refunded: 'Listeden bir iade filtresi seçin.',
      search: 'En fazla 254 karakter arayın.',
      sort: 'Listeden bir sıralama seçin.',
      cursor: 'Listenin bu sayfası artık yok; ilk sayfadan başlayın.',
    },
    none: 'Henüz ödeme yok.',
    noneFiltered: 'Bu filtrelere uyan ödeme yok.',
    next: 'Sonraki sayfa',
    firstPage: 'İlk sayfa',
    columns: {
      id: 'Ödeme',
      amount: 'Tutar',
      status: 'Durum',
      method: 'Yöntem',
      reference: 'Referans',
      customer: 'Müşteri',
      createdAt: 'Oluşturulma',
    },
    backToList: 'Tüm ödemeler',
    summary: 'Özet',
    details: {
      id: 'Ödeme',
      amount: 'Tutar',
      refunded: 'İade edilen',
      refundable: 'İade edilebilir',
      fee: 'Komisyon',
      net: 'Net',
      card: 'Kart',
      customerName: 'Müşteri',
      customerEmail: 'E-posta',
      customerPhone: 'Telefon',
      customerReference: 'Müşteri referansı',
      expiresAt: 'Ödeme sayfasının süresi',
      failure: 'Neden',
    },
    cardShown: '{brand} •••• {last4}',
    feeNotYet: 'Alınmadı (ödeme başarılı olmadı)',
    refund: {
      heading: 'İade',
      amountLabel: 'İade tutarı',
      amountHint: 'Kalanın tamamını iade etmek için boş bırakın: {amount}.',
      start: 'İade et…',
      confirmTitle: 'İadeyi onaylayın',
      confirmBody: '{charge} ödemesinin {total} tutarından {amount} müşteriye iade edilsin mi?',
      feeKept: '{fee} kart komisyonu iade edilmez: bu iade bakiyenizden {amount} düşer. İade geri alınamaz.',
      feeKeptOnCharge:
        'İade, iade ettiğiniz tutarı müşteriye geri öder; {fee} kart komisyonu iade edilmez: {amount} tutarın tamamını iade etmek bakiyenizden {amount} düşer, bu ödeme ise {net} alacak yazmıştı.',
      confirm: 'Şimdi iade et',
      cancel: 'Vazgeç',
      notPermitted: 'Rolünüz iade yapamaz. Bir sahip veya yöneticiye başvurun.',
      problems: {
        amount: 'Tutarı 125,50 gibi, sıfırdan büyük bir TRY tutarı olarak yazın.',
        exceeds: 'Bu, iade edilebilir kalandan ({amount}) fazla.',
        nothing_left: 'Bu ödemede iade edilecek tutar kalmadı.',
        not_refundable: 'Yalnızca başarılı bir ödeme iade edilebilir.',
        disputed: 'Bu ödemenin bir kısmı itirazlarla tutuluyor: en fazla {amount} iade edilebilir.',
        rejected: 'Banka iadeyi reddetti: {message}',
        unavailable: 'Bankaya ulaşılamıyor; iade beklemede kalır ve yeniden denenir.',
        not_configured: 'Bu ortam için banka yapılandırılmamış.',
      },
    },
    notices: {
      refunded: 'İade başarılı.',
      refundPending: 'Bankaya ulaşılamadı: iade beklemede ve arka planda yeniden denenecek.',
      retried: 'Webhook gönderimi şimdi yeniden denenecek.',
    },
    timeline: {
      heading: 'Zaman çizelgesi',
      created: 'Oluşturuldu',
      attempts: 'Kart denemeleri: {count}',
      lastCard: 'Son kart: {brand} •••• {last4}',
      attempt: '{number}. kart denemesi',
      attemptOutcomes: {
        succeeded: 'onaylandı',
        declined: 'reddedildi',
        challenge: '3-D Secure doğrulaması',
        error: 'ödeme kuruluşuna ulaşılamadı',
      },
      attemptCard: '{brand} •••• {last4}',
      attemptCardNoBrand: '•••• {last4}',
      declineCode: 'kod {code}',
      threeDs: '3-D Secure: müşterinin doğrulaması bekleniyor',
      notification: 'Banka bildirimi {type} ({outcome})',
      refund: '{amount} iade: {status}',
      succeeded: 'Başarılı',
      failed: 'Başarısız',
      expired: 'Süresi doldu',
      expires: 'Ödenmezse ödeme sayfasının süresi dolar',
    },
    refundStatuses: { pending: 'Beklemede', succeeded: 'Başarılı', failed: 'Başarısız' },
    refunds: 'İadeler',
    noRefunds: 'İade yok.',
    moreRefunds:
      'En yeni {count} iade listelenir; tümü için GET /v1/charges/{id}/refunds sayfa sayfa okunur.',
    events: 'Olaylar',
    noEvents: 'Henüz olay yok.',
    deliveries: 'Webhook gönderimleri',
    noDeliveries: 'Webhook gönderimi yok.',
    deliveryStatuses: { pending: 'Beklemede', succeeded: 'İletildi', failed: 'Başarısız' },
    deliveryAttempts: '{count} deneme',
    retry: 'Şimdi yeniden dene',
    ledger: 'Muhasebe kayıtları',
    ledgerHint: 'Sizin açınızdan: + bakiyenize ekler, - bakiyenizden düşer.',
    noLedger: 'Henüz muhasebe kaydı yok: ödeme başarılı olunca kaydedilir.',
    ledgerKinds: { charge_succeeded: 'Ödeme', refund: 'İade' },
    accounts: {
      acquirer_clearing: 'Banka takas hesabı',
      merchant_pending: 'Bekleyen bakiyeniz',
      fee_revenue: 'Komisyon',
    },
    moneyLines: {
      'charge_succeeded:acquirer_clearing': 'Ödeme · müşterinin ödediği',
      'charge_succeeded:fee_revenue': 'Ödeme · kart komisyonu',
      'charge_succeeded:merchant_pending': 'Ödeme · bekleyen bakiyenize',
      'refund:acquirer_clearing': 'İade · müşteriye geri',
      'refund:merchant_pending': 'İade · bekleyen bakiyenizden',
    },
    notPermitted: 'Rolünüz ödemeleri göremez.',
  },
};

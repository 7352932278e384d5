import type { Locale } from '../../web/i18n.js';

type BatchStatus = 'released' | 'held' | 'paid_out' | 'carried';
type CarryReason = 'no_default_wallet' | 'below_minimum' | 'manual_schedule' | 'nothing_available';
type PayoutStatus = 'pending' | 'in_transit' | 'completed' | 'failed' | 'canceled';
/** Why there is no usable rate (src/modules/payouts/rates.ts; `not_configured`: no rate source). */
type RateProblem = 'missing' | 'stale' | 'unreachable' | 'invalid' | 'not_configured';

/** The settlement pages' words, Turkish and English. */
export interface SettlementMessages {
  title: string;
  /** `{environment}`: the session's environment. */
  intro: string;
  none: string;
  older: string;
  newest: string;
  details: string;
  backToList: string;
  /** `{date}`: the business date. */
  batchTitle: string;
  notPermitted: string;
  fields: {
    id: string;
    businessDate: string;
    status: string;
    cutoff: string;
    gross: string;
    fees: string;
    refunds: string;
    net: string;
    itemCount: string;
    reserveHeld: string;
    reserveReleaseDate: string;
    reserveReleased: string;
    reserveReleasedFrom: string;
    rate: string;
    payout: string;
    payoutStatus: string;
    payoutDebited: string;
    payoutSent: string;
    arrivalDate: string;
    carryReason: string;
    holdReason: string;
  };
  statuses: Record<BatchStatus, string>;
  carryReasons: Record<CarryReason, string>;
  /** A held batch waits for a usable rate; `{reason}`: what the rate source said, in `rateProblems`' words. */
  holdReason: string;
  /** Why the rate source had no usable rate (a held batch's `holdReason`, `rate_unavailable:<reason>`). */
  rateProblems: Record<RateProblem, string>;
  /** A batch held because the organization is frozen (hold reason `organization_frozen`, ADR 0053). */
  frozenHold: string;
  payoutStatuses: Record<PayoutStatus, string>;
  /** `{rate}`: USDT per TRY; `{source}`. */
  rateValue: string;
  statement: string;
  /** `{sequence}`: the statement's place in the chain. */
  statementIntro: string;
  hash: string;
  previousHash: string;
  firstStatement: string;
  downloadCsv: string;
  downloadJson: string;
  notReady: string;
  lines: string;
  noLines: string;
  /** `{shown}` of `{count}` lines. */
  linesCapped: string;
  lineTypes: Record<'charge' | 'refund' | 'dispute' | 'recovery', string>;
  lineFields: {
    source: string;
    charge: string;
    merchantReference: string;
    amount: string;
    fee: string;
    net: string;
    occurredAt: string;
  };
}

export const SETTLEMENT_MESSAGES: Record<Locale, SettlementMessages> = {
  en: {
    title: 'Settlements',
    intro:
      'Each business day at 03:00 UTC the day’s pending balance is released as a batch and paid out in USDT to your default wallet. {environment} batches, newest first.',
    none: 'No settlement batches yet.',
    older: 'Older batches',
    newest: 'Newest batches',
    details: 'Details and statement',
    backToList: 'All settlements',
    batchTitle: 'Settlement of {date}',
    notPermitted: 'Your role cannot see settlements. Ask an owner or an admin.',
    fields: {
      id: 'Batch',
      businessDate: 'Business date',
      status: 'Status',
      cutoff: 'Cutoff',
      gross: 'Charges',
      fees: 'Fees',
      refunds: 'Refunds',
      net: 'Net',
      itemCount: 'Lines',
      reserveHeld: 'Reserve held',
      reserveReleaseDate: 'Reserve released on',
      reserveReleased: 'Reserve released',
      reserveReleasedFrom: 'Released from',
      rate: 'Rate',
      payout: 'Payout',
      payoutStatus: 'Payout status',
      payoutDebited: 'Debited',
      payoutSent: 'Sent',
      arrivalDate: 'Arrives',
      carryReason: 'No payout because',
      holdReason: 'Waiting because',
    },
    statuses: {
      released: 'Released',
      held: 'Held',
      paid_out: 'Paid out',
      carried: 'Carried',
    },
    carryReasons: {
      no_default_wallet: 'there is no default wallet; the funds stay available.',
      below_minimum: 'the available balance is below the network minimum; the funds stay available.',
      manual_schedule: 'your organization pays out by hand; the funds stay available.',
      nothing_available: 'nothing was available to pay out.',
    },
    holdReason: 'there is no usable exchange rate yet ({reason}); retried automatically.',
    rateProblems: {
      missing: 'no rate is available',
      stale: 'the latest rate is too old',
      unreachable: 'the rate source cannot be reached',
      invalid: 'the rate source gave an unusable rate',
      not_configured: 'no rate source is configured',
    },
    frozenHold:
      'your organization is paused; the funds stay available and are paid out on the first business day after it is resumed.',
    payoutStatuses: {
      pending: 'Pending',
      in_transit: 'In transit',
      completed: 'Completed',
      failed: 'Failed',
      canceled: 'Canceled',
    },
    rateValue: '1 TRY = {rate} USDT ({source})',
    statement: 'Statement',
    statementIntro:
      'Statement number {sequence} of this environment’s chain: every charge and refund of the batch with its fee, the totals, the rate and the payout. Keep the hash: a later change to any line no longer matches it.',
    hash: 'SHA-256 hash',
    previousHash: 'Previous hash',
    firstStatement: 'none (the first statement)',
    downloadCsv: 'Download CSV',
    downloadJson: 'Download JSON',
    notReady: 'The statement is ready once the batch’s payout phase has ended (paid out or carried).',
    lines: 'Charges and refunds',
    noLines: 'This batch released no charges or refunds (only a reserve).',
    linesCapped: 'The first {shown} of {count} lines; the downloads have all of them.',
    lineTypes: { charge: 'Charge', refund: 'Refund', dispute: 'Dispute', recovery: 'Debt recovered' },
    lineFields: {
      source: 'Source',
      charge: 'Charge',
      merchantReference: 'Your reference',
      amount: 'Amount',
      fee: 'Fee',
      net: 'Net',
      occurredAt: 'When',
    },
  },
  tr: {
    title: 'Hakedişler',
    intro:
      'Her iş günü 03:00 UTC’de günün bekleyen bakiyesi bir hakediş olarak serbest bırakılır ve varsayılan cüzdanınıza USDT olarak ödenir. {environment} hakedişleri, en yenisi önce.',
    none: 'Henüz hakediş yok.',
    older: 'Daha eski hakedişler',
    newest: 'En yeni hakedişler',
    details: 'Ayrıntılar ve ekstre',
    backToList: 'Tüm hakedişler',
    batchTitle: '{date} hakedişi',
    notPermitted: 'Rolünüz hakedişleri göremez. Bir hesap sahibine veya yöneticiye başvurun.',
    fields: {
      id: 'Hakediş',
      businessDate: 'İş günü',
      status: 'Durum',
      cutoff: 'Kesim zamanı',
      gross: 'Ödemeler',
      fees: 'Komisyonlar',
      refunds: 'İadeler',
      net: 'Net',
      itemCount: 'Satırlar',
      reserveHeld: 'Tutulan rezerv',
      reserveReleaseDate: 'Rezervin serbest kalacağı gün',
      reserveReleased: 'Serbest bırakılan rezerv',
      reserveReleasedFrom: 'Serbest bırakıldığı hakediş',
      rate: 'Kur',
      payout: 'Ödeme',
      payoutStatus: 'Ödeme durumu',
      payoutDebited: 'Düşülen',
      payoutSent: 'Gönderilen',
      arrivalDate: 'Varış',
      carryReason: 'Ödeme yapılmadı, çünkü',
      holdReason: 'Bekliyor, çünkü',
    },
    statuses: {
      released: 'Serbest bırakıldı',
      held: 'Bekletiliyor',
      paid_out: 'Ödendi',
      carried: 'Devredildi',
    },
    carryReasons: {
      no_default_wallet: 'varsayılan cüzdan yok; tutar kullanılabilir bakiyede kalır.',
      below_minimum: 'kullanılabilir bakiye ağın alt sınırının altında; tutar kullanılabilir bakiyede kalır.',
      manual_schedule: 'kuruluşunuz ödemeleri elle yapıyor; tutar kullanılabilir bakiyede kalır.',
      nothing_available: 'ödenecek kullanılabilir bakiye yoktu.',
    },
    holdReason: 'henüz kullanılabilir bir kur yok ({reason}); otomatik olarak yeniden denenir.',
    rateProblems: {
      missing: 'kur bilgisi yok',
      stale: 'son kur çok eski',
      unreachable: 'kur kaynağına ulaşılamıyor',
      invalid: 'kur kaynağı kullanılamaz bir kur verdi',
      not_configured: 'kur kaynağı yapılandırılmamış',
    },
    frozenHold:
      'kuruluşunuz durduruldu; tutar kullanılabilir bakiyede kalır ve kuruluş yeniden açıldıktan sonraki ilk iş gününde ödenir.',
    payoutStatuses: {
      pending: 'Beklemede',
      in_transit: 'Yolda',
      completed: 'Tamamlandı',
      failed: 'Başarısız',
      canceled: 'İptal edildi',
    },
    rateValue: '1 TRY = {rate} USDT ({source})',
    statement: 'Ekstre',
    statementIntro:
      'Bu ortamın zincirindeki {sequence} numaralı ekstre: hakedişin her ödemesi ve iadesi komisyonuyla, toplamlar, kur ve ödeme. Hash değerini saklayın: herhangi bir satırda sonradan yapılan bir değişiklik onunla artık eşleşmez.',
    hash: 'SHA-256 hash',
    previousHash: 'Önceki hash',
    firstStatement: 'yok (ilk ekstre)',
    downloadCsv: 'CSV indir',
    downloadJson: 'JSON indir',
    notReady: 'Ekstre, hakedişin ödeme aşaması bitince (ödendi veya devredildi) hazır olur.',
    lines: 'Ödemeler ve iadeler',
    noLines: 'Bu hakediş hiçbir ödeme veya iade içermiyor (yalnızca rezerv).',
    linesCapped: '{count} satırın ilk {shown} tanesi; indirilen dosyalarda hepsi var.',
    lineTypes: { charge: 'Ödeme', refund: 'İade', dispute: 'İtiraz', recovery: 'Borç tahsili' },
    lineFields: {
      source: 'Kaynak',
      charge: 'Ödeme',
      merchantReference: 'Sizin referansınız',
      amount: 'Tutar',
      fee: 'Komisyon',
      net: 'Net',
      occurredAt: 'Zaman',
    },
  },
};

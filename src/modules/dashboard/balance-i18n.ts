import type { Locale } from '../../web/i18n.js';

/** Why the balance page's payout button made no payout (each as `POST /v1/payouts` would refuse it). */
export type PayoutProblem =
  | 'amount'
  | 'insufficient'
  | 'below_minimum'
  | 'no_wallet'
  | 'rate'
  | 'not_enabled'
  | 'frozen'
  | 'kyc'
  | 'not_permitted';

/** The balance and payout pages' words, Turkish and English. */
export interface BalanceMessages {
  title: string;
  /** `{environment}`: the session's environment. */
  intro: string;
  notPermitted: string;
  cards: {
    heading: string;
    pending: string;
    available: string;
    inTransit: string;
    reserve: string;
    pendingHint: string;
    availableHint: string;
    inTransitHint: string;
    reserveHint: string;
    debt: string;
    debtHint: string;
    /** `{amount}`: what the organization owes (refunds beyond what was left to settle). */
    debtNotice: string;
    position: string;
    positionHint: string;
  };
  /** The payout button (flag `payouts`) and its confirmation page. */
  create: {
    heading: string;
    /** `{network}`: the default wallet's; its address follows. */
    intro: string;
    amountLabel: string;
    /** `{amount}`: the available balance; `{example}`: an amount as typed. */
    amountHint: string;
    start: string;
    noWallet: string;
    nothingAvailable: string;
    /** `{amount}`: the debt, which a payout does not repay. */
    debtWarning: string;
    confirmTitle: string;
    /** `{amount}`, `{available}`, `{network}`. */
    confirmBody: string;
    confirmRate: string;
    confirmFinal: string;
    confirm: string;
    cancel: string;
    notPermitted: string;
    /** On the payout's page after the button made it. */
    created: string;
    problems: Record<PayoutProblem, string>;
  };
  next: {
    heading: string;
    /** `{date}`: the business date; `{cutoff}`: its cut-off time. */
    when: string;
    /** `{dates}`: the dates skipped, each with why. */
    skipped: string;
    weekend: string;
    /** `{name}`: the holiday. */
    holiday: string;
    /** `{name}`: the operator's reason. */
    closure: string;
    expectedNet: string;
    expectedHint: string;
    nothingPending: string;
    /** `{percent}`, `{days}`: the organization's rolling reserve. */
    reserveHeld: string;
    reserveReleased: string;
    toAvailable: string;
    noReserve: string;
    payoutDaily: string;
    /** `{network}`: the default wallet's; its address follows. */
    payoutTo: string;
    noDefaultWallet: string;
    manualSchedule: string;
    /** `{count}`: batches waiting for a usable rate. */
    heldBatches: string;
    sandbox: string;
  };
  payouts: {
    heading: string;
    none: string;
    older: string;
    newest: string;
    tableLabel: string;
    id: string;
    status: string;
    amountUsdt: string;
    amountTry: string;
    network: string;
    wallet: string;
    created: string;
    arrival: string;
    automatic: string;
    manual: string;
  };
  payout: {
    /** `{id}`: the payout. */
    title: string;
    backToBalance: string;
    fields: {
      status: string;
      amountTry: string;
      amountUsdt: string;
      spread: string;
      rate: string;
      network: string;
      wallet: string;
      address: string;
      rail: string;
      txHash: string;
      arrivalDate: string;
      kind: string;
      description: string;
      failure: string;
    };
    history: string;
    events: {
      created: string;
      inTransit: string;
      completed: string;
      failed: string;
      canceled: string;
    };
    batch: string;
    /** `{date}`: the batch's business date. */
    batchLink: string;
    noBatch: string;
    statement: string;
    downloadCsv: string;
    downloadJson: string;
    noStatement: string;
    transactions: string;
    transactionsHint: string;
    noTransactions: string;
    noTransactionsManual: string;
    moreTransactions: string;
    firstTransactions: string;
    transactionsLabel: string;
    type: string;
    source: string;
    reference: string;
    gross: string;
    fee: string;
    net: string;
    occurred: string;
    types: { charge: string; refund: string };
    rails: { sandbox_chain: string; treasury: string };
    networks: { tron: string; ethereum: string };
  };
}

const en: BalanceMessages = {
  title: 'Balance and payouts',
  intro:
    'The money of your {environment} environment: what is waiting for the next daily batch, what is ready to pay out, what is on its way to your wallet, and every payout.',
  notPermitted:
    'Your role cannot see the balance and payouts. Owners, admins and viewers can; ask an owner if you need to.',
  cards: {
    heading: 'Balance',
    pending: 'Pending',
    available: 'Available',
    inTransit: 'In transit',
    reserve: 'Reserve',
    pendingHint:
      'Succeeded payments net of their card fees, less refunds, since the last batch: what the next batch settles. Never below zero: refunds beyond it are debt.',
    availableHint:
      'Batched and not paid out yet: paid out by the daily payout, or by a payout you make here or through the API.',
    inTransitHint: 'In a payout that has not completed yet.',
    reserveHint: 'Held back by your rolling reserve until a later batch releases it.',
    debt: 'Debt',
    debtHint:
      'What you owe: refunds beyond what was left to settle (a refund returns the whole amount to the customer; the card fee is not returned). Counted here only, not also in Pending.',
    debtNotice:
      'Refunds exceeded what was left to settle: you owe {amount}. It is recovered from your next payments before anything is batched.',
    position: 'Your position',
    positionHint: 'Pending + available + in transit + reserve − debt: each amount counted once.',
  },
  create: {
    heading: 'Pay out now',
    intro: 'Pay part or all of the available balance as USDT to your default wallet ({network}):',
    amountLabel: 'Amount to pay out',
    amountHint: 'In TRY, like {example}. Leave empty to pay out all that is available: {amount}.',
    start: 'Pay out…',
    noWallet: 'Add a default wallet to pay out: payouts go only to the default wallet.',
    nothingAvailable: 'Nothing is available to pay out: pending funds become available with the next batch.',
    debtWarning:
      'You owe {amount} (debt): a payout does not repay it; it is recovered from your next payments.',
    confirmTitle: 'Confirm the payout',
    confirmBody: 'Pay out {amount} of your available {available} to your {network} wallet?',
    confirmRate:
      'It is converted to USDT at the rate of the moment you confirm, less the FX spread, and rounded down to 6 decimals; only the TRY the USDT accounts for leaves the available balance.',
    confirmFinal: 'A payout cannot be canceled here once it is made.',
    confirm: 'Pay out now',
    cancel: 'Cancel',
    notPermitted: 'Your role cannot make payouts. Ask an owner or an admin.',
    created: 'The payout was made. It is sent to your wallet; its status follows here.',
    problems: {
      amount: 'Write the amount in TRY, like 125.50, more than zero.',
      insufficient: 'That is more than is available ({amount}).',
      below_minimum: 'The smallest payout on {network} is {amount}.',
      no_wallet: 'This environment has no active default wallet: add one on the Wallets page.',
      rate: 'No current TRY to USDT rate: nothing is converted at a guessed rate. Try again in a few minutes.',
      not_enabled: 'Payouts are not enabled for your organization; they are enabled on request.',
      frozen: 'Your organization is paused: no payout can be made. Contact support.',
      kyc: 'Live payouts wait for your KYC review to be approved, as live API requests do.',
      not_permitted: 'Your role cannot make payouts. Ask an owner or an admin.',
    },
  },
  next: {
    heading: 'Next batch',
    when: '{date}, cut-off {cutoff}',
    skipped: 'No batch runs on {dates}.',
    weekend: 'weekend',
    holiday: 'public holiday: {name}',
    closure: 'closed: {name}',
    expectedNet: 'Expected to settle',
    expectedHint:
      'What is pending now. Payments that succeed before the cut-off join this batch; refunds made before it reduce it.',
    nothingPending: 'Nothing is pending: the next batch has nothing to settle yet.',
    reserveHeld:
      'Held back by the rolling reserve ({percent}% for {days, plural, one {# day} other {# days}})',
    reserveReleased: 'Earlier reserve released with this batch',
    toAvailable: 'Expected to become available',
    noReserve: 'No rolling reserve is set for your organization.',
    payoutDaily: 'After the batch, the available balance is paid out automatically as USDT.',
    payoutTo: 'Paid to your default wallet ({network}):',
    noDefaultWallet:
      'No automatic payout is possible: this environment has no default wallet. The funds stay available until you add one.',
    manualSchedule:
      'Your payouts are on the manual schedule: the funds stay available until you pay them out (below, or through the API).',
    heldBatches:
      '{count, plural, one {# batch is} other {# batches are}} held: no usable TRY to USDT rate yet. They are paid out as soon as a rate is available; nothing is paid at a guessed rate.',
    sandbox:
      'Sandbox balances never reach a real wallet: sandbox payouts are made on the sandbox chain, and POST /v1/test-helpers/settle runs a batch now.',
  },
  payouts: {
    heading: 'Payouts',
    none: 'No payouts yet.',
    older: 'Older payouts',
    newest: 'Newest payouts',
    tableLabel: 'Payouts, newest first',
    id: 'Payout',
    status: 'Status',
    amountUsdt: 'Amount (USDT)',
    amountTry: 'TRY debited',
    network: 'Network',
    wallet: 'Wallet',
    created: 'Created',
    arrival: 'Arrival',
    automatic: 'Daily batch',
    manual: 'Manual',
  },
  payout: {
    title: 'Payout {id}',
    backToBalance: 'Back to balance and payouts',
    fields: {
      status: 'Status',
      amountTry: 'TRY debited from available',
      amountUsdt: 'USDT sent',
      spread: 'FX spread',
      rate: 'Rate (USDT per TRY)',
      network: 'Network',
      wallet: 'Wallet',
      address: 'Address',
      rail: 'Sent by',
      txHash: 'Transaction hash',
      arrivalDate: 'Expected arrival',
      kind: 'Made by',
      description: 'Description',
      failure: 'Failure',
    },
    history: 'Status history',
    events: {
      created: 'Created (pending)',
      inTransit: 'In transit',
      completed: 'Completed',
      failed: 'Failed: the funds returned to available',
      canceled: 'Canceled: the funds returned to available',
    },
    batch: 'Settlement batch',
    batchLink: 'The batch of {date}',
    noBatch:
      'This payout was made manually (here or through the API), not by a daily batch: it has no batch and no statement of its own.',
    statement: 'Statement',
    downloadCsv: 'Download the statement (CSV)',
    downloadJson: 'Download the statement (JSON)',
    noStatement: 'The statement is not ready yet.',
    transactions: 'Transactions',
    transactionsHint:
      'The charges (with their fees) and refunds released to the available balance that this payout carries; the reserve is on the batch.',
    noTransactions: 'This payout carries no transactions.',
    noTransactionsManual:
      'This manual payout carries no transactions: what it paid had been released to the available balance and carried by an earlier payout, or none was waiting.',
    moreTransactions: 'More transactions',
    firstTransactions: 'First transactions',
    transactionsLabel: 'Transactions of this payout',
    type: 'Type',
    source: 'Charge or refund',
    reference: 'Your reference',
    gross: 'Amount',
    fee: 'Fee',
    net: 'Net',
    occurred: 'Occurred',
    types: { charge: 'Charge', refund: 'Refund' },
    rails: { sandbox_chain: 'Sandbox chain (test)', treasury: 'Treasury' },
    networks: { tron: 'TRON (TRC-20)', ethereum: 'Ethereum (ERC-20)' },
  },
};

const tr: BalanceMessages = {
  title: 'Bakiye ve hakedişler',
  intro:
    '{environment} ortamınızın parası: bir sonraki günlük hakedişi bekleyen, ödemeye hazır olan, cüzdanınıza yolda olan tutarlar ve tüm ödemeler.',
  notPermitted:
    'Rolünüz bakiyeyi ve ödemeleri göremez. Sahipler, yöneticiler ve izleyiciler görebilir; gerekiyorsa bir sahibe danışın.',
  cards: {
    heading: 'Bakiye',
    pending: 'Bekleyen',
    available: 'Kullanılabilir',
    inTransit: 'Yolda',
    reserve: 'Teminat',
    pendingHint:
      'Son hakedişten bu yana başarılı ödemeler, kart komisyonları ve iadeler düşülmüş olarak: sonraki hakedişin tutarı. Sıfırın altına inmez: onu aşan iadeler borçtur.',
    availableHint:
      'Hakedişe girmiş, henüz ödenmemiş: günlük ödemeyle ya da burada veya API ile yaptığınız bir ödemeyle ödenir.',
    inTransitHint: 'Henüz tamamlanmamış bir ödemede.',
    reserveHint: 'Dönen teminatınız gereği, sonraki bir hakediş serbest bırakana dek tutuluyor.',
    debt: 'Borç',
    debtHint:
      'Borcunuz: hakedişe kalan tutarı aşan iadeler (iade, tutarın tamamını müşteriye geri öder; kart komisyonu iade edilmez). Yalnızca burada sayılır, Bekleyen’den ayrıca düşülmez.',
    debtNotice:
      'İadeler, hakedişe kalan tutarı aştı: {amount} borcunuz var. Herhangi bir hakedişten önce sonraki tahsilatlarınızdan karşılanır.',
    position: 'Toplam durumunuz',
    positionHint: 'Bekleyen + kullanılabilir + yolda + teminat − borç: her tutar bir kez sayılır.',
  },
  create: {
    heading: 'Şimdi öde',
    intro:
      'Kullanılabilir bakiyenin bir kısmını veya tamamını USDT olarak varsayılan cüzdanınıza ({network}) ödeyin:',
    amountLabel: 'Ödenecek tutar',
    amountHint:
      'TRY olarak, örneğin {example}. Kullanılabilir tutarın tamamını ödemek için boş bırakın: {amount}.',
    start: 'Öde…',
    noWallet: 'Ödeme için varsayılan bir cüzdan ekleyin: ödemeler yalnızca varsayılan cüzdana gider.',
    nothingAvailable:
      'Ödenecek kullanılabilir tutar yok: bekleyen tutarlar sonraki hakedişle kullanılabilir olur.',
    debtWarning:
      '{amount} borcunuz var: ödeme bu borcu kapatmaz; borç sonraki tahsilatlarınızdan karşılanır.',
    confirmTitle: 'Ödemeyi onaylayın',
    confirmBody: 'Kullanılabilir {available} tutarınızdan {amount}, {network} cüzdanınıza ödensin mi?',
    confirmRate:
      'Onayladığınız andaki kurla, kur farkı düşülerek USDT’ye çevrilir ve 6 ondalığa aşağı yuvarlanır; kullanılabilir bakiyeden yalnızca USDT’nin karşılığı olan TRY düşülür.',
    confirmFinal: 'Ödeme yapıldıktan sonra buradan iptal edilemez.',
    confirm: 'Şimdi öde',
    cancel: 'Vazgeç',
    notPermitted: 'Rolünüz ödeme yapamaz. Bir sahibe veya yöneticiye danışın.',
    created: 'Ödeme yapıldı. Cüzdanınıza gönderiliyor; durumu burada izlenir.',
    problems: {
      amount: 'Tutarı TRY olarak, örneğin 125,50, sıfırdan büyük yazın.',
      insufficient: 'Bu, kullanılabilir tutardan ({amount}) fazla.',
      below_minimum: '{network} ağında en küçük ödeme {amount}.',
      no_wallet: 'Bu ortamın etkin bir varsayılan cüzdanı yok: Cüzdanlar sayfasından ekleyin.',
      rate: 'Güncel bir TRY/USDT kuru yok: tahmini bir kurla hiçbir şey çevrilmez. Birkaç dakika sonra yeniden deneyin.',
      not_enabled: 'Kuruluşunuz için ödemeler açık değil; talep üzerine açılır.',
      frozen: 'Kuruluşunuz durduruldu: ödeme yapılamaz. Destekle iletişime geçin.',
      kyc: 'Canlı ödemeler, canlı API istekleri gibi, KYC incelemeniz onaylanana kadar bekler.',
      not_permitted: 'Rolünüz ödeme yapamaz. Bir sahibe veya yöneticiye danışın.',
    },
  },
  next: {
    heading: 'Sonraki hakediş',
    when: '{date}, kesim {cutoff}',
    skipped: '{dates} günlerinde hakediş yapılmaz.',
    weekend: 'hafta sonu',
    holiday: 'resmî tatil: {name}',
    closure: 'kapalı: {name}',
    expectedNet: 'Hakedişe girmesi beklenen',
    expectedHint:
      'Şu anda bekleyen tutar. Kesimden önce başarılı olan ödemeler bu hakedişe katılır; kesimden önceki iadeler onu azaltır.',
    nothingPending: 'Bekleyen tutar yok: sonraki hakedişte henüz hakediş yapılacak bir şey yok.',
    reserveHeld: 'Dönen teminat olarak tutulacak (%{percent}, {days} gün)',
    reserveReleased: 'Bu hakedişle serbest kalacak önceki teminat',
    toAvailable: 'Kullanılabilir olması beklenen',
    noReserve: 'Kuruluşunuz için dönen teminat tanımlı değil.',
    payoutDaily: 'Hakedişten sonra kullanılabilir bakiye otomatik olarak USDT olarak ödenir.',
    payoutTo: 'Varsayılan cüzdanınıza ödenir ({network}):',
    noDefaultWallet:
      'Otomatik ödeme yapılamaz: bu ortamın varsayılan cüzdanı yok. Bir cüzdan ekleyene dek tutar kullanılabilir bakiyede kalır.',
    manualSchedule:
      'Ödemeleriniz elle yapılıyor: siz ödeyene dek (aşağıdan veya API ile) tutar kullanılabilir bakiyede kalır.',
    heldBatches:
      '{count} hakediş bekletiliyor: henüz kullanılabilir bir TRY/USDT kuru yok. Kur bulunur bulunmaz ödenir; tahmini bir kurla hiçbir şey ödenmez.',
    sandbox:
      'Sandbox bakiyeleri hiçbir zaman gerçek bir cüzdana gitmez: sandbox ödemeleri sandbox zincirinde yapılır; POST /v1/test-helpers/settle hakedişi hemen çalıştırır.',
  },
  payouts: {
    heading: 'Ödemeler',
    none: 'Henüz ödeme yok.',
    older: 'Daha eski ödemeler',
    newest: 'En yeni ödemeler',
    tableLabel: 'Ödemeler, en yeni önce',
    id: 'Ödeme',
    status: 'Durum',
    amountUsdt: 'Tutar (USDT)',
    amountTry: 'Düşülen TRY',
    network: 'Ağ',
    wallet: 'Cüzdan',
    created: 'Oluşturulma',
    arrival: 'Varış',
    automatic: 'Günlük hakediş',
    manual: 'Elle',
  },
  payout: {
    title: 'Ödeme {id}',
    backToBalance: 'Bakiye ve hakedişlere dön',
    fields: {
      status: 'Durum',
      amountTry: 'Kullanılabilir bakiyeden düşülen TRY',
      amountUsdt: 'Gönderilen USDT',
      spread: 'Kur farkı',
      rate: 'Kur (TRY başına USDT)',
      network: 'Ağ',
      wallet: 'Cüzdan',
      address: 'Adres',
      rail: 'Gönderen',
      txHash: 'İşlem özeti (hash)',
      arrivalDate: 'Beklenen varış',
      kind: 'Oluşturan',
      description: 'Açıklama',
      failure: 'Hata',
    },
    history: 'Durum geçmişi',
    events: {
      created: 'Oluşturuldu (bekliyor)',
      inTransit: 'Yolda',
      completed: 'Tamamlandı',
      failed: 'Başarısız: tutar kullanılabilir bakiyeye döndü',
      canceled: 'İptal edildi: tutar kullanılabilir bakiyeye döndü',
    },
    batch: 'Hakediş',
    batchLink: '{date} hakedişi',
    noBatch:
      'Bu ödeme günlük hakedişle değil, elle (burada veya API ile) yapıldı: kendine ait bir hakedişi ve ekstresi yok.',
    statement: 'Ekstre',
    downloadCsv: 'Ekstreyi indir (CSV)',
    downloadJson: 'Ekstreyi indir (JSON)',
    noStatement: 'Ekstre henüz hazır değil.',
    transactions: 'İşlemler',
    transactionsHint:
      'Bu ödemenin taşıdığı, kullanılabilir bakiyeye aktarılmış tahsilatlar (komisyonlarıyla) ve iadeler; teminat hakedişte yer alır.',
    noTransactions: 'Bu ödeme hiçbir işlem taşımıyor.',
    noTransactionsManual:
      'Bu elle yapılan ödeme hiçbir işlem taşımıyor: ödediği tutar kullanılabilir bakiyeye aktarılmış ve önceki bir ödemeyle taşınmıştı ya da bekleyen işlem yoktu.',
    moreTransactions: 'Diğer işlemler',
    firstTransactions: 'İlk işlemler',
    transactionsLabel: 'Bu ödemenin işlemleri',
    type: 'Tür',
    source: 'Tahsilat veya iade',
    reference: 'Referansınız',
    gross: 'Tutar',
    fee: 'Komisyon',
    net: 'Net',
    occurred: 'Zaman',
    types: { charge: 'Tahsilat', refund: 'İade' },
    rails: { sandbox_chain: 'Sandbox zinciri (test)', treasury: 'Hazine' },
    networks: { tron: 'TRON (TRC-20)', ethereum: 'Ethereum (ERC-20)' },
  },
};

export const BALANCE_MESSAGES: Record<Locale, BalanceMessages> = { en, tr };

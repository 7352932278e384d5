import type { EvidenceField } from '../disputes/schemas.js';
import type { DisputeAlertView, DisputeView } from '../disputes/views.js';
import type { Locale } from '../../web/i18n.js';

type DisputeStatus = DisputeView['status'];
type DisputeReason = DisputeView['reason'];
type DisputeStage = DisputeView['stage'];
type ClosedBy = NonNullable<DisputeView['closedBy']>;
type AlertStatus = DisputeAlertView['status'];
type EntryKind =
  'dispute_funds_withdrawn' | 'dispute_funds_reinstated' | 'dispute_fee' | 'dispute_fee_returned';

/** What the dispute pages say went wrong with an answer (the use case's refusal, or the upload's). */
export type DisputeProblem =
  | 'nothing_to_submit'
  | 'evidence_past_due'
  | 'evidence_already_submitted'
  | 'not_answerable'
  | 'acquirer_not_configured'
  | 'provider_rejected'
  | 'provider_unavailable'
  | 'invalid_input'
  | 'file_missing'
  | 'file_empty'
  | 'file_too_large'
  | 'file_type_not_allowed'
  | 'file_name'
  | 'file_rejected'
  | 'too_many_files';

export type DisputeNotice = 'saved' | 'submitted' | 'accepted' | 'uploaded' | 'removed';

/** The Disputes pages' words, Turkish and English (issue 37 item 7). */
export interface DisputeMessages {
  title: string;
  /** `{environment}`: the session's environment. */
  intro: string;
  tabsLabel: string;
  tabs: { disputes: string; fraudWarnings: string; alerts: string };
  notPermitted: string;
  readOnly: string;
  statusFilter: string;
  any: string;
  filter: string;
  clear: string;
  badStatus: string;
  badCursor: string;
  none: string;
  noneFiltered: string;
  next: string;
  firstPage: string;
  dueSoon: string;
  noDeadline: string;
  columns: {
    charge: string;
    amount: string;
    reason: string;
    status: string;
    evidenceDueBy: string;
    createdAt: string;
    id: string;
  };
  statuses: Record<DisputeStatus, string>;
  reasons: Record<DisputeReason, string>;
  stages: Record<DisputeStage, string>;
  closedBy: Record<ClosedBy, string>;
  backToList: string;
  details: {
    charge: string;
    merchantReference: string;
    amount: string;
    reason: string;
    reasonCode: string;
    network: string;
    stage: string;
    evidenceDueBy: string;
    withdrawn: string;
    reinstated: string;
    creditProcessed: string;
    closedBy: string;
    closedAt: string;
    createdAt: string;
    updatedAt: string;
  };
  /** `{time}`: the deadline. */
  deadline: string;
  deadlinePassed: string;
  creditProcessedNote: string;
  ledger: string;
  noLedger: string;
  entryKinds: Record<EntryKind, string>;
  submissions: string;
  noSubmissions: string;
  /** `{stage}`, `{time}`. */
  submittedFor: string;
  evidence: string;
  evidenceIntro: string;
  /** `{time}`: when it was sent. */
  evidenceSent: string;
  evidenceClosed: string;
  fields: Record<EvidenceField, { label: string; hint: string }>;
  /** `{max}`: characters per field. */
  fieldLimit: string;
  save: string;
  submit: string;
  files: string;
  noFiles: string;
  fileLabel: string;
  /** `{max}`: MiB per file. */
  fileHint: string;
  upload: string;
  removeFile: string;
  confirmSubmit: {
    title: string;
    body: string;
    empty: string;
    confirm: string;
    cancel: string;
  };
  accept: {
    heading: string;
    explain: string;
    start: string;
    title: string;
    /** `{amount}`, `{charge}`. */
    body: string;
    confirm: string;
    cancel: string;
  };
  notices: Record<DisputeNotice, string>;
  problems: Record<DisputeProblem, string>;
  fraudWarnings: {
    intro: string;
    none: string;
    columns: {
      charge: string;
      reason: string;
      reasonCode: string;
      network: string;
      refund: string;
      createdAt: string;
    };
    notRefunded: string;
  };
  alerts: {
    intro: string;
    none: string;
    columns: {
      charge: string;
      amount: string;
      reason: string;
      status: string;
      refundBy: string;
      refund: string;
    };
    statuses: Record<AlertStatus, string>;
  };
}

const en: DisputeMessages = {
  title: 'Disputes',
  intro:
    'Cases your customers’ card issuers opened against {environment} payments, newest first. Answer each one with evidence before its deadline, or accept it.',
  tabsLabel: 'Kind of case',
  tabs: { disputes: 'Disputes', fraudWarnings: 'Early fraud warnings', alerts: 'Pre-dispute alerts' },
  notPermitted: 'Your role cannot read disputes. Ask an owner or an admin.',
  readOnly: 'Your role can read this dispute but not answer or accept it. Ask an owner or an admin.',
  statusFilter: 'Status',
  any: 'Any',
  filter: 'Filter',
  clear: 'All disputes',
  badStatus: 'That is not a status of a dispute.',
  badCursor: 'That page of the list no longer exists; start from the newest.',
  none: 'No disputes. When an issuer questions a payment, it appears here.',
  noneFiltered: 'No dispute has that status.',
  next: 'Older disputes',
  firstPage: 'Newest disputes',
  dueSoon: 'due within 48 hours',
  noDeadline: 'None',
  columns: {
    charge: 'Payment',
    amount: 'Amount',
    reason: 'Reason',
    status: 'Status',
    evidenceDueBy: 'Evidence due',
    createdAt: 'Opened',
    id: 'Dispute',
  },
  statuses: {
    warning_needs_response: 'Inquiry: needs a response',
    warning_under_review: 'Inquiry: under review',
    warning_closed: 'Inquiry: closed',
    needs_response: 'Needs a response',
    under_review: 'Under review',
    won: 'Won',
    lost: 'Lost',
  },
  reasons: {
    fraudulent: 'Fraudulent',
    unrecognized: 'Unrecognised',
    product_not_received: 'Product not received',
    product_unacceptable: 'Product unacceptable',
    subscription_canceled: 'Subscription cancelled',
    credit_not_processed: 'Credit not processed',
    duplicate: 'Duplicate',
    general: 'General',
  },
  stages: { inquiry: 'Inquiry', chargeback: 'Chargeback', pre_arbitration: 'Pre-arbitration' },
  closedBy: {
    acceptance: 'Accepted by you',
    decision: 'The issuer’s decision',
    deadline: 'The deadline passed',
    refund: 'A refund',
  },
  backToList: 'All disputes',
  details: {
    charge: 'Payment',
    merchantReference: 'Your reference',
    amount: 'Disputed amount',
    reason: 'Reason',
    reasonCode: 'Scheme reason code',
    network: 'Card scheme',
    stage: 'Stage',
    evidenceDueBy: 'Evidence due by',
    withdrawn: 'Withdrawn',
    reinstated: 'Reinstated',
    creditProcessed: 'Already refunded',
    closedBy: 'Closed by',
    closedAt: 'Closed',
    createdAt: 'Opened',
    updatedAt: 'Last change',
  },
  deadline: 'Send your evidence by {time}.',
  deadlinePassed: 'The deadline has passed.',
  creditProcessedNote:
    'This payment had been refunded when the dispute was opened: your evidence starts with a note of the refund.',
  ledger: 'Ledger entries',
  noLedger: 'No money has moved for this dispute.',
  entryKinds: {
    dispute_funds_withdrawn: 'Disputed amount withdrawn',
    dispute_funds_reinstated: 'Disputed amount reinstated',
    dispute_fee: 'Dispute fee',
    dispute_fee_returned: 'Dispute fee returned',
  },
  submissions: 'Evidence sent',
  noSubmissions: 'No evidence has been sent yet.',
  submittedFor: '{stage}, sent {time}',
  evidence: 'Evidence',
  evidenceIntro:
    'Write what shows the payment was genuine. Save as often as you like; submitting sends everything saved to the card issuer, once per stage.',
  evidenceSent: 'Evidence was sent on {time}. The card issuer is reviewing it.',
  evidenceClosed: 'This dispute takes no evidence now.',
  fields: {
    productDescription: {
      label: 'Product or service description',
      hint: 'What was sold: the product or service, its price and terms.',
    },
    customerCommunication: {
      label: 'Customer communication',
      hint: 'Messages exchanged with the customer (e-mails, chat), quoted as text.',
    },
    refundPolicy: {
      label: 'Refund policy',
      hint: 'The refund policy the customer agreed to, and how it was shown.',
    },
    cancellationPolicy: {
      label: 'Cancellation policy',
      hint: 'The cancellation policy the customer agreed to, and how it was shown.',
    },
    accessActivityLog: {
      label: 'Access or activity log',
      hint: 'The customer using what was bought: logins, sessions, streams (an IPTV access log), with times and IP addresses.',
    },
    deliveryProof: {
      label: 'Delivery or access proof',
      hint: 'A carrier tracking number, a signature, an activation.',
    },
    uncategorizedText: { label: 'Anything else', hint: 'Anything else that supports your case.' },
  },
  fieldLimit: 'At most {max} characters per field, and in all.',
  save: 'Save evidence',
  submit: 'Submit evidence…',
  files: 'Files',
  noFiles: 'No files attached.',
  fileLabel: 'Add a file',
  fileHint: 'A PDF, PNG or JPEG of at most {max} MiB: receipts, screenshots, signed terms.',
  upload: 'Upload',
  removeFile: 'Remove',
  confirmSubmit: {
    title: 'Submit the evidence?',
    body: 'This sends the evidence below to the card issuer. You cannot change or add to it afterwards.',
    empty: '(empty)',
    confirm: 'Submit to the card issuer',
    cancel: 'Back to the dispute',
  },
  accept: {
    heading: 'Accept the dispute',
    explain:
      'If you do not contest it, accept the dispute: it closes as lost, and the disputed amount and the fee stay withdrawn.',
    start: 'Accept the dispute…',
    title: 'Accept the dispute?',
    body: 'Accept the dispute of {amount} on {charge}? It closes as lost and cannot be answered afterwards.',
    confirm: 'Accept and close as lost',
    cancel: 'Back to the dispute',
  },
  notices: {
    saved: 'Evidence saved. It has not been sent yet.',
    submitted: 'Evidence sent to the card issuer.',
    accepted: 'Dispute accepted: it is closed as lost.',
    uploaded: 'File uploaded and added to the evidence.',
    removed: 'File removed from the evidence.',
  },
  problems: {
    nothing_to_submit: 'There is no evidence to submit: write at least one field, then save.',
    evidence_past_due: 'The deadline for evidence has passed.',
    evidence_already_submitted: 'Evidence was already sent for this stage of the dispute.',
    not_answerable: 'This dispute cannot be answered in its current status.',
    acquirer_not_configured: 'No acquirer is configured for this environment.',
    provider_rejected: 'The acquirer refused it: {message}',
    provider_unavailable: 'The acquirer is unavailable; nothing was sent. Try again in a minute.',
    invalid_input: 'The evidence is too long: at most {max} characters in all, with the fields’ labels.',
    file_missing: 'Choose a file to upload.',
    file_empty: 'The file is empty.',
    file_too_large: 'The file is larger than {max} MiB.',
    file_type_not_allowed: 'The file is not a PDF, PNG or JPEG (its contents are checked, not its name).',
    file_name: 'The file’s name is too long or contains control characters.',
    file_rejected: 'The file could not be added to the evidence.',
    too_many_files: 'The evidence holds as many files as it may ({max}).',
  },
  fraudWarnings: {
    intro:
      'Issuers’ fraud reports on {environment} payments. No money moves yet, but a dispute may follow; they count in the card schemes’ ratios.',
    none: 'No early fraud warnings.',
    columns: {
      charge: 'Payment',
      reason: 'Reason',
      reasonCode: 'Code',
      network: 'Card scheme',
      refund: 'Refund',
      createdAt: 'Received',
    },
    notRefunded: 'Not refunded',
  },
  alerts: {
    intro:
      'The issuer drops the case if the payment is refunded before the deadline; otherwise a dispute follows. {environment} payments, newest first.',
    none: 'No pre-dispute alerts.',
    columns: {
      charge: 'Payment',
      amount: 'Amount',
      reason: 'Reason',
      status: 'Status',
      refundBy: 'Refund by',
      refund: 'Refund',
    },
    statuses: { open: 'Open', resolved: 'Resolved by a refund', expired: 'Expired' },
  },
};

const tr: DisputeMessages = {
  title: 'İtirazlar',
  intro:
    'Müşterilerinizin kart çıkaran bankalarının {environment} ödemelerinize açtığı itirazlar, en yenisi önce. Her birini son tarihinden önce kanıtla yanıtlayın ya da kabul edin.',
  tabsLabel: 'Dosya türü',
  tabs: {
    disputes: 'İtirazlar',
    fraudWarnings: 'Erken dolandırıcılık uyarıları',
    alerts: 'İtiraz öncesi uyarılar',
  },
  notPermitted: 'Rolünüz itirazları göremez. Bir sahip ya da yöneticiye başvurun.',
  readOnly:
    'Rolünüz bu itirazı görebilir ama yanıtlayamaz ya da kabul edemez. Bir sahip ya da yöneticiye başvurun.',
  statusFilter: 'Durum',
  any: 'Hepsi',
  filter: 'Süz',
  clear: 'Tüm itirazlar',
  badStatus: 'Bu, bir itirazın durumu değil.',
  badCursor: 'Listenin bu sayfası artık yok; en yeniden başlayın.',
  none: 'İtiraz yok. Bir banka bir ödemeye itiraz ettiğinde burada görünür.',
  noneFiltered: 'Bu durumda itiraz yok.',
  next: 'Daha eski itirazlar',
  firstPage: 'En yeni itirazlar',
  dueSoon: '48 saat içinde sona eriyor',
  noDeadline: 'Yok',
  columns: {
    charge: 'Ödeme',
    amount: 'Tutar',
    reason: 'Neden',
    status: 'Durum',
    evidenceDueBy: 'Kanıt son tarihi',
    createdAt: 'Açılış',
    id: 'İtiraz',
  },
  statuses: {
    warning_needs_response: 'Bilgi talebi: yanıt bekliyor',
    warning_under_review: 'Bilgi talebi: inceleniyor',
    warning_closed: 'Bilgi talebi: kapandı',
    needs_response: 'Yanıt bekliyor',
    under_review: 'İnceleniyor',
    won: 'Kazanıldı',
    lost: 'Kaybedildi',
  },
  reasons: {
    fraudulent: 'Dolandırıcılık',
    unrecognized: 'Tanınmayan işlem',
    product_not_received: 'Ürün teslim alınmadı',
    product_unacceptable: 'Ürün kabul edilemez',
    subscription_canceled: 'Abonelik iptal edildi',
    credit_not_processed: 'İade yapılmadı',
    duplicate: 'Mükerrer işlem',
    general: 'Genel',
  },
  stages: { inquiry: 'Bilgi talebi', chargeback: 'Ters ibraz', pre_arbitration: 'Tahkim öncesi' },
  closedBy: {
    acceptance: 'Sizin kabulünüz',
    decision: 'Bankanın kararı',
    deadline: 'Son tarihin geçmesi',
    refund: 'Bir iade',
  },
  backToList: 'Tüm itirazlar',
  details: {
    charge: 'Ödeme',
    merchantReference: 'Sizin referansınız',
    amount: 'İtiraz edilen tutar',
    reason: 'Neden',
    reasonCode: 'Kart şeması neden kodu',
    network: 'Kart şeması',
    stage: 'Aşama',
    evidenceDueBy: 'Kanıt son tarihi',
    withdrawn: 'Çekilen',
    reinstated: 'Geri verilen',
    creditProcessed: 'Önceden iade edilmiş',
    closedBy: 'Kapatan',
    closedAt: 'Kapanış',
    createdAt: 'Açılış',
    updatedAt: 'Son değişiklik',
  },
  deadline: 'Kanıtınızı {time} tarihine kadar gönderin.',
  deadlinePassed: 'Son tarih geçti.',
  creditProcessedNote: 'İtiraz açıldığında bu ödeme iade edilmişti: kanıtınız iadenin notuyla başlar.',
  ledger: 'Muhasebe kayıtları',
  noLedger: 'Bu itiraz için henüz para hareketi yok.',
  entryKinds: {
    dispute_funds_withdrawn: 'İtiraz edilen tutar çekildi',
    dispute_funds_reinstated: 'İtiraz edilen tutar geri verildi',
    dispute_fee: 'İtiraz ücreti',
    dispute_fee_returned: 'İtiraz ücreti iade edildi',
  },
  submissions: 'Gönderilen kanıt',
  noSubmissions: 'Henüz kanıt gönderilmedi.',
  submittedFor: '{stage}, gönderim: {time}',
  evidence: 'Kanıt',
  evidenceIntro:
    'Ödemenin gerçek olduğunu gösteren her şeyi yazın. İstediğiniz kadar kaydedebilirsiniz; gönderdiğinizde kaydedilen her şey kart çıkaran bankaya iletilir, her aşamada bir kez.',
  evidenceSent: 'Kanıt {time} tarihinde gönderildi. Banka inceliyor.',
  evidenceClosed: 'Bu itiraz şu anda kanıt kabul etmiyor.',
  fields: {
    productDescription: {
      label: 'Ürün ya da hizmet açıklaması',
      hint: 'Ne satıldı: ürün ya da hizmet, fiyatı ve koşulları.',
    },
    customerCommunication: {
      label: 'Müşteriyle yazışmalar',
      hint: 'Müşteriyle yapılan yazışmalar (e-posta, sohbet), metin olarak.',
    },
    refundPolicy: {
      label: 'İade politikası',
      hint: 'Müşterinin kabul ettiği iade politikası ve nasıl gösterildiği.',
    },
    cancellationPolicy: {
      label: 'İptal politikası',
      hint: 'Müşterinin kabul ettiği iptal politikası ve nasıl gösterildiği.',
    },
    accessActivityLog: {
      label: 'Erişim ya da kullanım kaydı',
      hint: 'Müşterinin satın aldığını kullandığını gösteren kayıtlar: girişler, oturumlar, yayınlar (IPTV erişim kaydı), saat ve IP adresleriyle.',
    },
    deliveryProof: {
      label: 'Teslimat ya da erişim kanıtı',
      hint: 'Kargo takip numarası, imza, etkinleştirme kaydı.',
    },
    uncategorizedText: { label: 'Diğer', hint: 'Davanızı destekleyen başka her şey.' },
  },
  fieldLimit: 'Alan başına ve toplamda en fazla {max} karakter.',
  save: 'Kanıtı kaydet',
  submit: 'Kanıtı gönder…',
  files: 'Dosyalar',
  noFiles: 'Ekli dosya yok.',
  fileLabel: 'Dosya ekle',
  fileHint:
    'En fazla {max} MiB boyutunda PDF, PNG ya da JPEG: makbuzlar, ekran görüntüleri, imzalı koşullar.',
  upload: 'Yükle',
  removeFile: 'Kaldır',
  confirmSubmit: {
    title: 'Kanıt gönderilsin mi?',
    body: 'Aşağıdaki kanıt kart çıkaran bankaya gönderilecek. Sonrasında değiştiremez ya da ekleme yapamazsınız.',
    empty: '(boş)',
    confirm: 'Bankaya gönder',
    cancel: 'İtiraza dön',
  },
  accept: {
    heading: 'İtirazı kabul et',
    explain:
      'İtiraza karşı çıkmayacaksanız kabul edin: itiraz kaybedilmiş olarak kapanır, itiraz edilen tutar ve ücret çekilmiş olarak kalır.',
    start: 'İtirazı kabul et…',
    title: 'İtiraz kabul edilsin mi?',
    body: '{charge} ödemesindeki {amount} tutarındaki itiraz kabul edilsin mi? Kaybedilmiş olarak kapanır ve sonra yanıtlanamaz.',
    confirm: 'Kabul et ve kaybedilmiş olarak kapat',
    cancel: 'İtiraza dön',
  },
  notices: {
    saved: 'Kanıt kaydedildi. Henüz gönderilmedi.',
    submitted: 'Kanıt kart çıkaran bankaya gönderildi.',
    accepted: 'İtiraz kabul edildi: kaybedilmiş olarak kapandı.',
    uploaded: 'Dosya yüklendi ve kanıta eklendi.',
    removed: 'Dosya kanıttan çıkarıldı.',
  },
  problems: {
    nothing_to_submit: 'Gönderilecek kanıt yok: en az bir alanı doldurup kaydedin.',
    evidence_past_due: 'Kanıt için son tarih geçti.',
    evidence_already_submitted: 'İtirazın bu aşaması için kanıt zaten gönderildi.',
    not_answerable: 'Bu itiraz şu anki durumunda yanıtlanamaz.',
    acquirer_not_configured: 'Bu ortam için yapılandırılmış bir ödeme kuruluşu yok.',
    provider_rejected: 'Ödeme kuruluşu reddetti: {message}',
    provider_unavailable:
      'Ödeme kuruluşuna ulaşılamıyor; hiçbir şey gönderilmedi. Bir dakika sonra yeniden deneyin.',
    invalid_input: 'Kanıt çok uzun: alan başlıklarıyla birlikte toplamda en fazla {max} karakter.',
    file_missing: 'Yüklenecek bir dosya seçin.',
    file_empty: 'Dosya boş.',
    file_too_large: 'Dosya {max} MiB’tan büyük.',
    file_type_not_allowed: 'Dosya PDF, PNG ya da JPEG değil (adına değil, içeriğine bakılır).',
    file_name: 'Dosyanın adı çok uzun ya da denetim karakterleri içeriyor.',
    file_rejected: 'Dosya kanıta eklenemedi.',
    too_many_files: 'Kanıt alabileceği kadar dosya içeriyor ({max}).',
  },
  fraudWarnings: {
    intro:
      'Bankaların {environment} ödemeleriniz için dolandırıcılık bildirimleri. Henüz para hareketi yok ama bir itiraz gelebilir; kart şemalarının oranlarına sayılırlar.',
    none: 'Erken dolandırıcılık uyarısı yok.',
    columns: {
      charge: 'Ödeme',
      reason: 'Neden',
      reasonCode: 'Kod',
      network: 'Kart şeması',
      refund: 'İade',
      createdAt: 'Alındı',
    },
    notRefunded: 'İade edilmedi',
  },
  alerts: {
    intro:
      'Ödeme son tarihten önce iade edilirse banka dosyayı kapatır; yoksa bir itiraz gelir. {environment} ödemeleri, en yenisi önce.',
    none: 'İtiraz öncesi uyarı yok.',
    columns: {
      charge: 'Ödeme',
      amount: 'Tutar',
      reason: 'Neden',
      status: 'Durum',
      refundBy: 'Son iade tarihi',
      refund: 'İade',
    },
    statuses: { open: 'Açık', resolved: 'İadeyle kapandı', expired: 'Süresi doldu' },
  },
};

export const DISPUTE_MESSAGES: Record<Locale, DisputeMessages> = { en, tr };

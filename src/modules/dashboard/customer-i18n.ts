import type { Locale } from '../../web/i18n.js';

type ChargeStatus = 'pending' | 'succeeded' | 'failed' | 'expired';

/** The customer pages' words, Turkish and English. */
export interface CustomerMessages {
  title: string;
  /** `{environment}`: the session's environment. */
  intro: string;
  none: string;
  /** `{email}`: the address searched for. */
  noneWithEmail: string;
  search: string;
  searchLabel: string;
  clearSearch: string;
  /** `{email}`: the address searched for. */
  searchingFor: string;
  older: string;
  newest: string;
  details: string;
  backToList: string;
  unnamed: string;
  notPermitted: string;
  fields: {
    id: string;
    name: string;
    email: string;
    phone: string;
    reference: string;
    idNumber: string;
    createdAt: string;
    updatedAt: string;
  };
  /** Whether an ID number is on file (it is never shown). */
  idNumberOnFile: string;
  idNumberNone: string;
  charges: string;
  noCharges: string;
  moreCharges: string;
  firstCharges: string;
  chargeFields: {
    id: string;
    merchantReference: string;
    amount: string;
    status: string;
    createdAt: string;
  };
  chargeStatuses: Record<ChargeStatus, string>;
}

export const CUSTOMER_MESSAGES: Record<Locale, CustomerMessages> = {
  en: {
    title: 'Customers',
    intro:
      'Who pays you, as your integration recorded them through the API. {environment} customers, newest first.',
    none: 'No customers yet.',
    noneWithEmail: 'No customer with the e-mail address {email}.',
    search: 'Search',
    searchLabel: 'Find by e-mail address',
    clearSearch: 'All customers',
    searchingFor: 'Customers with the e-mail address {email}.',
    older: 'Older customers',
    newest: 'Newest customers',
    details: 'Details and charges',
    backToList: 'All customers',
    unnamed: 'No name',
    notPermitted: 'Your role cannot see customers. Ask an owner or an admin.',
    fields: {
      id: 'Customer',
      name: 'Name',
      email: 'E-mail',
      phone: 'Phone',
      reference: 'Reference',
      idNumber: 'ID number',
      createdAt: 'Created',
      updatedAt: 'Updated',
    },
    idNumberOnFile: 'On file',
    idNumberNone: 'None',
    charges: 'Charges',
    noCharges: 'No charges for this customer.',
    moreCharges: 'Older charges',
    firstCharges: 'Newest charges',
    chargeFields: {
      id: 'Charge',
      merchantReference: 'Reference',
      amount: 'Amount',
      status: 'Status',
      createdAt: 'Created',
    },
    chargeStatuses: { pending: 'Pending', succeeded: 'Succeeded', failed: 'Failed', expired: 'Expired' },
  },
  tr: {
    title: 'Müşteriler',
    intro:
      'Size ödeme yapanlar, entegrasyonunuzun API ile kaydettiği şekliyle. {environment} müşterileri, en yeniler önce.',
    none: 'Henüz müşteri yok.',
    noneWithEmail: '{email} e-posta adresli müşteri yok.',
    search: 'Ara',
    searchLabel: 'E-posta adresiyle bul',
    clearSearch: 'Tüm müşteriler',
    searchingFor: '{email} e-posta adresli müşteriler.',
    older: 'Daha eski müşteriler',
    newest: 'En yeni müşteriler',
    details: 'Ayrıntılar ve ödemeler',
    backToList: 'Tüm müşteriler',
    unnamed: 'Adsız',
    notPermitted: 'Rolünüz müşterileri göremez. Bir sahip veya yöneticiye başvurun.',
    fields: {
      id: 'Müşteri',
      name: 'Ad',
      email: 'E-posta',
      phone: 'Telefon',
      reference: 'Referans',
      idNumber: 'Kimlik numarası',
      createdAt: 'Oluşturulma',
      updatedAt: 'Güncellenme',
    },
    idNumberOnFile: 'Kayıtlı',
    idNumberNone: 'Yok',
    charges: 'Ödemeler',
    noCharges: 'Bu müşteri için ödeme yok.',
    moreCharges: 'Daha eski ödemeler',
    firstCharges: 'En yeni ödemeler',
    chargeFields: {
      id: 'Ödeme',
      merchantReference: 'Referans',
      amount: 'Tutar',
      status: 'Durum',
      createdAt: 'Oluşturulma',
    },
    chargeStatuses: {
      pending: 'Beklemede',
      succeeded: 'Başarılı',
      failed: 'Başarısız',
      expired: 'Süresi doldu',
    },
  },
};

import type { Locale } from '../../web/i18n.js';

/** The event pages' words, English and Turkish (Developers, events). */
export interface EventMessages {
  title: string;
  /** `{environment}`. */
  intro: string;
  none: string;
  noneOfType: string;
  typeLabel: string;
  allTypes: string;
  filter: string;
  older: string;
  newest: string;
  backToList: string;
  notPermitted: string;
  badType: string;
  fields: { id: string; type: string; createdAt: string; about: string; payload: string };
  /** The resource an event is about, linked where the dashboard has its page. */
  openPayment: string;
  openPayout: string;
  payloadHint: string;
}

const en: EventMessages = {
  title: 'Events',
  intro:
    'Everything that happened to your {environment} charges, refunds, payouts and wallets, newest first: the same events GET /v1/events lists and your webhook endpoints receive.',
  none: 'No events yet.',
  noneOfType: 'No events of this type.',
  typeLabel: 'Type',
  allTypes: 'All types',
  filter: 'Show',
  older: 'Older events',
  newest: 'Newest events',
  backToList: 'All events',
  notPermitted: 'Your role cannot read events.',
  badType: 'There is no such event type.',
  fields: { id: 'Event', type: 'Type', createdAt: 'Created', about: 'About', payload: 'Payload' },
  openPayment: 'Open the payment',
  openPayout: 'Open the payout',
  payloadHint: 'Exactly as a webhook delivers it (the data of the event).',
};

const tr: EventMessages = {
  title: 'Olaylar',
  intro:
    '{environment} ödemeleriniz, iadeleriniz, hakedişleriniz ve cüzdanlarınızla ilgili her şey, en yeniler önce: GET /v1/events ile listelenen ve webhook uç noktalarınıza gönderilen olaylar.',
  none: 'Henüz olay yok.',
  noneOfType: 'Bu türde olay yok.',
  typeLabel: 'Tür',
  allTypes: 'Tüm türler',
  filter: 'Göster',
  older: 'Daha eski olaylar',
  newest: 'En yeni olaylar',
  backToList: 'Tüm olaylar',
  notPermitted: 'Rolünüz olayları okuyamaz.',
  badType: 'Böyle bir olay türü yok.',
  fields: { id: 'Olay', type: 'Tür', createdAt: 'Oluşturulma', about: 'İlgili', payload: 'İçerik' },
  openPayment: 'Ödemeyi aç',
  openPayout: 'Hakedişi aç',
  payloadHint: 'Bir webhook’un ilettiği haliyle (olayın verisi).',
};

export const EVENT_MESSAGES: Record<Locale, EventMessages> = { en, tr };

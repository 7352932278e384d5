import type { App } from '../../http/server.js';
import { guardedRoute, pageRoute, registerPages, SETTINGS_POST, signedIn, signedInPost } from './kit.js';
import {
  deleteEndpoint,
  resumeDeliveries,
  retryDelivery,
  RetryRoute,
  rotateSecret,
  RotateRoute,
  switchSecret,
  SwitchRoute,
} from './webhook-commands.js';
import {
  confirmDelete,
  createEndpoint,
  EndpointCreateRoute,
  EndpointEditRoute,
  EndpointListRoute,
  EndpointRoute,
  EndpointStatusRoute,
  editEndpoint,
  setEndpointStatus,
} from './webhook-endpoints.js';
import { detailPage, EndpointCommandRoute, listPage, noticeOf } from './webhook-pages.js';
import type { DashboardWebhookPagesOptions } from './webhook-options.js';

/** The notice of the redirect that led to a page, if it is one of the webhook pages'. */
const shownNotice = (value: string | undefined) => {
  const notice = noticeOf(value);
  return notice ? { notice } : {};
};

const LIST = '/dashboard/webhooks';
const ENDPOINT = `${LIST}/:id`;
/**
 * The webhook endpoint pages of the merchant dashboard: list, create, detail, rotate, switch to the new
 * secret and resume the paused deliveries (ADR 0068), delete.
 */
export async function webhookPages(app: App, options: DashboardWebhookPagesOptions): Promise<void> {
  registerPages(app, options, [
    guardedRoute(
      'GET',
      LIST,
      EndpointListRoute,
      signedIn,
      (options: DashboardWebhookPagesOptions, request, reply, current) =>
        listPage(options, request, reply, current, 200, shownNotice(request.query.notice)),
    ),
    guardedRoute('POST', LIST, EndpointCreateRoute, signedInPost, createEndpoint, SETTINGS_POST),
    guardedRoute(
      'GET',
      ENDPOINT,
      EndpointRoute,
      signedIn,
      (options: DashboardWebhookPagesOptions, request, reply, current) =>
        detailPage(
          options,
          request,
          reply,
          current,
          request.params.id,
          200,
          shownNotice(request.query.notice),
        ),
    ),
    pageRoute('POST', `${ENDPOINT}/status`, EndpointStatusRoute, setEndpointStatus, SETTINGS_POST),
    pageRoute('POST', `${ENDPOINT}/edit`, EndpointEditRoute, editEndpoint, SETTINGS_POST),
    pageRoute('POST', `${ENDPOINT}/rotate`, RotateRoute, rotateSecret, SETTINGS_POST),
    pageRoute('POST', `${ENDPOINT}/switch`, SwitchRoute, switchSecret, SETTINGS_POST),
    pageRoute('POST', `${ENDPOINT}/resume`, EndpointCommandRoute, resumeDeliveries, SETTINGS_POST),
    guardedRoute('GET', `${ENDPOINT}/delete`, EndpointRoute, signedIn, confirmDelete),
    pageRoute('POST', `${ENDPOINT}/delete`, EndpointCommandRoute, deleteEndpoint, SETTINGS_POST),
    pageRoute('POST', `${ENDPOINT}/deliveries/:deliveryId/retry`, RetryRoute, retryDelivery, SETTINGS_POST),
  ]);
}

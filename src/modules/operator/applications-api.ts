import { Type } from 'typebox';
import type { App } from '../../http/server.js';
import { cursorOrThrow } from '../../http/cursor-errors.js';
import type { UnderwritingService } from '../organizations/service.js';
import { actorOf } from './auth.js';
import type { OperatorCommands } from './commands.js';
import { valueOf } from './errors.js';
import {
  API_ERRORS as errors,
  ApplicationViewSchema,
  IdParamsSchema,
  OrganizationViewSchema,
  PageQuerySchema,
  ReasonBodySchema,
  applicationView,
} from './schemas.js';

/** Merchant applications as JSON: the list, one application, and the underwriter's decisions. */
export function operatorApplicationApi(
  app: App,
  deps: { underwriting: UnderwritingService; commands: OperatorCommands },
): void {
  const { underwriting, commands } = deps;

  app.get(
    '/operator/v1/applications',
    {
      schema: {
        querystring: Type.Object(
          {
            ...PageQuerySchema.properties,
            status: Type.Optional(Type.Enum(['NEW', 'IN_REVIEW', 'APPROVED', 'REJECTED'])),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            data: Type.Array(ApplicationViewSchema),
            nextCursor: Type.Union([Type.String(), Type.Null()]),
          }),
          ...errors,
        },
      },
      config: { operator: 'read' },
    },
    async (request) => {
      const page = cursorOrThrow(await underwriting.listApplications(request.query));
      return { data: page.data.map(applicationView), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/operator/v1/applications/:id',
    {
      schema: { params: IdParamsSchema, response: { 200: ApplicationViewSchema, ...errors } },
      config: { operator: 'read' },
    },
    async (request) => applicationView(valueOf(await underwriting.getApplication(request.params.id))),
  );

  app.post(
    '/operator/v1/applications/:id/start-review',
    {
      schema: { params: IdParamsSchema, response: { 200: ApplicationViewSchema, ...errors } },
      config: { operator: 'underwrite' },
    },
    async (request) => valueOf(await commands.startReview(request.params.id, actorOf(request))),
  );

  app.post(
    '/operator/v1/applications/:id/approve',
    {
      schema: {
        params: IdParamsSchema,
        response: {
          200: Type.Object({
            application: ApplicationViewSchema,
            organization: OrganizationViewSchema,
            ownerEmail: Type.String(),
            emailId: Type.String({
              description: 'The approval e-mail (sandbox key and activation link) in the outbox.',
            }),
          }),
          ...errors,
        },
      },
      config: { operator: 'underwrite' },
    },
    async (request) => valueOf(await commands.approveApplication(request.params.id, actorOf(request))),
  );

  app.post(
    '/operator/v1/applications/:id/reject',
    {
      schema: {
        params: IdParamsSchema,
        body: ReasonBodySchema,
        response: { 200: ApplicationViewSchema, ...errors },
      },
      config: { operator: 'underwrite' },
    },
    async (request) =>
      valueOf(await commands.rejectApplication(request.params.id, request.body.reason, actorOf(request))),
  );
}

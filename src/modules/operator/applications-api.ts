import { Type } from 'typebox';
import type { App } from '../../http/server.js';
import { cursorOrThrow } from '../../http/cursor-errors.js';
import type { UnderwritingService } from '../organizations/service.js';
import { apiRoute, PageOf } from './api-kit.js';
import { actorOf } from './auth.js';
import type { OperatorCommands } from './commands.js';
import { valueOf } from './errors.js';
import {
  ApplicationViewSchema,
  IdParamsSchema,
  OrganizationViewSchema,
  PageQuerySchema,
  ReasonBodySchema,
  applicationView,
} from './schemas.js';

const ApplicationsQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    status: Type.Optional(Type.Enum(['NEW', 'IN_REVIEW', 'APPROVED', 'REJECTED'])),
  },
  { additionalProperties: false },
);

const ApprovalSchema = Type.Object({
  application: ApplicationViewSchema,
  organization: OrganizationViewSchema,
  ownerEmail: Type.String(),
  emailId: Type.String({
    description: 'The approval e-mail (sandbox key and activation link) in the outbox.',
  }),
});

/** Merchant applications as JSON: the list, one application, and the underwriter's decisions. */
export function operatorApplicationApi(
  app: App,
  deps: { underwriting: UnderwritingService; commands: OperatorCommands },
): void {
  const { underwriting, commands } = deps;
  const ofOne = { params: IdParamsSchema };

  app.get(
    '/operator/v1/applications',
    apiRoute('read', PageOf(ApplicationViewSchema), { querystring: ApplicationsQuerySchema }),
    async (request) => {
      const page = cursorOrThrow(await underwriting.listApplications(request.query));
      return { data: page.data.map(applicationView), nextCursor: page.nextCursor };
    },
  );

  app.get('/operator/v1/applications/:id', apiRoute('read', ApplicationViewSchema, ofOne), async (request) =>
    applicationView(valueOf(await underwriting.getApplication(request.params.id))),
  );

  app.post(
    '/operator/v1/applications/:id/start-review',
    apiRoute('underwrite', ApplicationViewSchema, ofOne),
    async (request) => valueOf(await commands.startReview(request.params.id, actorOf(request))),
  );

  app.post(
    '/operator/v1/applications/:id/approve',
    apiRoute('underwrite', ApprovalSchema, ofOne),
    async (request) => valueOf(await commands.approveApplication(request.params.id, actorOf(request))),
  );

  app.post(
    '/operator/v1/applications/:id/reject',
    apiRoute('underwrite', ApplicationViewSchema, { params: IdParamsSchema, body: ReasonBodySchema }),
    async (request) =>
      valueOf(await commands.rejectApplication(request.params.id, request.body.reason, actorOf(request))),
  );
}

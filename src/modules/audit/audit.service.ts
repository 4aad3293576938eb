import type { AppContext } from '../../context';
import { isoTime } from '../../lib/clock';
import { auditedRoute } from './audit.actions';
import type { AuditFilter, AuditRow } from './audit.types';
import { auditRepository } from './audit.repository';

export interface AuditEvent {
  actor: string;
  address: string;
  action: string;
  appId?: string | null;
  target: string;
  summary?: Record<string, unknown>;
}

/** What a route hook knows about a request that succeeded. */
export interface HandledRequest {
  method: string;
  route: string;
  path: string;
  params: Record<string, string | undefined>;
  body: unknown;
  answer: unknown;
  address: string;
}

/**
 * The audit log: who changed what, when, from where. The admin routes' hook (admin.guard.ts)
 * records every successful mutating request; the console sign-in and the command line record
 * their own events. Writes follow the change they describe (a crash in between loses the entry,
 * never the change).
 * @example await audit.record({ actor: 'cli', address: 'local', action: 'admin-token.reset', target: 'admin-token' });
 */
export function auditService(ctx: Pick<AppContext, 'db' | 'clock' | 'logger'>) {
  const repo = auditRepository(ctx.db.sql);
  /** The actor each admitted admin request was authenticated as (set by the guard). */
  const actors = new WeakMap<Request, string>();

  const record = async (event: AuditEvent): Promise<void> => {
    const summary = JSON.stringify(Object.fromEntries(Object.entries(event.summary ?? {}).filter(([, v]) => v !== undefined)));
    await repo.insert({ at: ctx.clock.now(), actor: event.actor, address: event.address, action: event.action, appId: event.appId ?? null, target: event.target, summary });
  };

  return {
    record,

    /** Remembers who `request` was authenticated as, for recordRequest. */
    admit(request: Request, actor: string): void {
      actors.set(request, actor);
    },

    /** Records a successful admin request when its route is a mutating one (see audit.actions.ts). */
    async recordRequest(request: Request, handled: HandledRequest): Promise<void> {
      const audited = auditedRoute(handled.method, handled.route);
      if (!audited) return;
      const body = handled.body && typeof handled.body === 'object' ? (handled.body as Record<string, unknown>) : undefined;
      // A created app's id may be the server's choice: it is in the answer, not the path.
      const createdId = (handled.answer as { app?: { id?: string } } | undefined)?.app?.id;
      const appId = handled.params.appId ?? createdId ?? null;
      const path = handled.path.replace(/^\/api\/admin\//, '');
      try {
        await record({
          actor: actors.get(request) ?? 'unknown',
          address: handled.address,
          action: audited.action,
          appId,
          target: handled.params.appId === undefined && createdId ? `apps/${createdId}` : path,
          summary: audited.summarize?.(body, handled.answer),
        });
      } catch (e) {
        // The change itself is done and answered; a failed audit write is logged, not turned into a 500.
        ctx.logger.error('writing the audit log failed', { action: audited.action, error: e instanceof Error ? e.message : String(e) });
      }
    },

    async list(filter: AuditFilter, limit: number, offset: number) {
      const { rows, total } = await repo.list(filter, limit, offset);
      return { entries: rows.map(auditView), total };
    },
  };
}

export type AuditService = ReturnType<typeof auditService>;

function auditView(row: AuditRow) {
  return {
    id: row.id,
    at: isoTime(row.at),
    actor: row.actor,
    address: row.address,
    action: row.action,
    appId: row.appId,
    target: row.target,
    summary: JSON.parse(row.summary) as Record<string, unknown>,
  };
}

/**
 * What an event changed, in words, from its `previous` (decision 37): the fields that
 * moved and where to, not only their names. Shared by the activity page and a
 * deployment's events.
 */
type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (v && typeof v === 'object' ? (v as Obj) : {});
const str = (v: unknown) => (v === null || v === undefined ? '—' : String(v));

/** The configuration's changed leaves: `size small → large`, `env +FOO −OLD ~BAR`. */
function configChanges(before: Obj, after: Obj): string[] {
  const out: string[] = [];
  for (const field of ['app_version', 'size'])
    if (before[field] !== after[field])
      out.push(`${field === 'app_version' ? 'version' : field} ${str(before[field])} → ${str(after[field])}`);
  const envBefore = asObj(before.env);
  const envAfter = asObj(after.env);
  const names = [...new Set([...Object.keys(envBefore), ...Object.keys(envAfter)])].sort();
  const env = names.flatMap((n) => {
    if (!(n in envBefore)) return [`+${n}`];
    if (!(n in envAfter)) return [`−${n}`];
    return JSON.stringify(envBefore[n]) === JSON.stringify(envAfter[n]) ? [] : [`~${n}`];
  });
  if (env.length) out.push(`env ${env.join(' ')}`);
  if (JSON.stringify(before.hibernation ?? null) !== JSON.stringify(after.hibernation ?? null))
    out.push(`hibernation schedule ${scheduleWords(before.hibernation)} → ${scheduleWords(after.hibernation)}`);
  return out;
}

/** Decision 50's `config.hibernation`: `none`, or how many schedules in which zone. */
function scheduleWords(v: unknown): string {
  const h = asObj(v);
  if (!Array.isArray(h.schedules)) return 'none';
  return `${h.schedules.length} schedule${h.schedules.length === 1 ? '' : 's'} (${str(h.time_zone)})`;
}

/** Decision 50's `hibernation`: the state's move, and the manual hold's `until` set or ended. */
function hibernationChanges(before: Obj, after: Obj): string[] {
  const out: string[] = [];
  if (before.state !== after.state) out.push(`hibernation: ${str(before.state)} → ${str(after.state)}`);
  if (before.until !== after.until) out.push(after.until ? `hibernation hold until ${str(after.until)}` : 'hibernation hold ended');
  return out;
}

export function describeChange(object: unknown, previous: unknown): string {
  const o = asObj(object);
  if (previous === undefined || previous === null) return `created (${str(o.status)})`;
  const p = asObj(previous);
  const parts: string[] = [];
  if ('status' in p) parts.push(`${str(p.status)} → ${str(o.status)}`);
  if ('progress' in p) {
    const before = asObj(p.progress).phase;
    const after = asObj(o.progress).phase;
    if (before !== after) parts.push(`phase ${str(before)} → ${str(after)}`);
  }
  if ('config' in p) parts.push(...configChanges(asObj(p.config), asObj(o.config)));
  // Decision 48: a health change is a deployment.updated event of its own, said as the move it was.
  if ('health' in p) parts.push(`health: ${str(asObj(p.health).status)} → ${str(asObj(o.health).status)}`);
  if ('hibernation' in p) parts.push(...hibernationChanges(asObj(p.hibernation), asObj(o.hibernation)));
  if ('revision' in p) parts.push(`revision ${str(p.revision)} → ${str(o.revision)}`);
  if ('links' in p) {
    const op = asObj(o.links).operation;
    if (op !== asObj(p.links).operation) parts.push(op ? 'operation started' : 'no operation');
  }
  if ('url' in p) parts.push(o.url ? 'url set' : 'url removed');
  if ('error' in p && o.error) parts.push(`error ${str(asObj(o.error).code)}`);
  if ('result' in p && o.result) parts.push('result recorded');
  const told = new Set([
    'status',
    'progress',
    'config',
    'health',
    'hibernation',
    'revision',
    'links',
    'url',
    'error',
    'result',
    'updated_at',
    'started_at',
    'ended_at',
    'applied_at',
  ]);
  const rest = Object.keys(p).filter((k) => !told.has(k));
  if (rest.length) parts.push(`${rest.join(', ')} changed`);
  return parts.length ? parts.join('; ') : `${Object.keys(p).join(', ')} changed`;
}

/**
 * What the client does when an answer says the request used a deprecated feature
 * (`Deprecation`, RFC 9745; with `Sunset`, RFC 8594, and `Link: <…>; rel="deprecation"`).
 */

export interface DeprecationNotice {
  /** The route the request was sent to, e.g. `GET /operations`. */
  route: string;
  /** When the feature was deprecated (the `Deprecation` header's Unix seconds). */
  deprecatedAt: Date;
  /** When it may stop working (the `Sunset` header), if the answer says. */
  sunset?: Date;
  /** Where it is explained (the `rel="deprecation"` link, made absolute), if the answer says. */
  link?: string;
}

/** The notice an answer carries, if it carries one. */
export function deprecationNoticeOf(headers: Headers, route: string, url: string): DeprecationNotice | undefined {
  const seconds = /^@(-?\d+)$/.exec(headers.get('deprecation')?.trim() ?? '')?.[1];
  if (seconds === undefined) return undefined;
  const sunset = Date.parse(headers.get('sunset') ?? '');
  const target = /<([^>]*)>\s*;[^,]*rel="?deprecation"?/i.exec(headers.get('link') ?? '')?.[1];
  return {
    route,
    deprecatedAt: new Date(Number(seconds) * 1000),
    ...(Number.isNaN(sunset) ? {} : { sunset: new Date(sunset) }),
    ...(target !== undefined ? { link: new URL(target, url).href } : {}),
  };
}

/** One line saying what a notice means, for a warning. */
export function describeDeprecation(n: DeprecationNotice): string {
  const day = (d: Date) => d.toISOString().slice(0, 10);
  return `${n.route} used a feature deprecated since ${day(n.deprecatedAt)}${n.sunset ? ` that may stop working after ${day(n.sunset)}` : ''}${n.link ? `; see ${n.link}` : ''}`;
}

/** Calls `warn` once per feature (route and link): a program that repeats the request is told once. */
export function oncePerFeature(warn: (notice: DeprecationNotice) => void): (notice: DeprecationNotice) => void {
  const told = new Set<string>();
  return (notice) => {
    const feature = `${notice.route} ${notice.link ?? ''} ${notice.deprecatedAt.getTime()}`;
    if (told.has(feature)) return;
    told.add(feature);
    warn(notice);
  };
}

/** The default: one Node.js DeprecationWarning per feature per process. */
export const warnOncePerProcess = oncePerFeature((notice) =>
  process.emitWarning(describeDeprecation(notice), { type: 'DeprecationWarning', code: 'DEPLOYMENTS_API_DEPRECATION' }),
);

/** A deployment's rolled-up health (decision 48) as a badge: green healthy, amber degraded, red unhealthy, grey otherwise. */
export function HealthBadge({ health }: { health: { status: string; since: string } }) {
  return (
    <span class={`badge health-${health.status}`} title={`Health: ${health.status}`}>
      {health.status}
    </span>
  );
}

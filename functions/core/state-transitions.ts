/**
 * What a Standard workflow's execution is billed (decision 323): AWS counts a state
 * transition for each state the execution enters and for each retry of a step. Read from
 * the execution's history as GetExecutionHistory gives it (on AWS and from the local
 * engine, local/sfn-endpoint.ts): each `…StateEntered` event, plus each attempt of a Task
 * beyond its first (a Task's attempts are its `LambdaFunctionScheduled` or `TaskScheduled`
 * events).
 */

/** A history event, as far as counting goes. */
export interface HistoryEventType {
  type?: string;
}

export function stateTransitions(events: readonly HistoryEventType[]): number {
  let entered = 0;
  let tasks = 0;
  let attempts = 0;
  for (const { type = '' } of events) {
    if (type.endsWith('StateEntered')) entered++;
    if (type === 'TaskStateEntered') tasks++;
    if (type === 'LambdaFunctionScheduled' || type === 'TaskScheduled') attempts++;
  }
  return entered + Math.max(0, attempts - tasks);
}

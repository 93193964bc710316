/**
 * The queue of webhook deliveries (decision 38): the dispatcher queues each delivery's
 * first attempt, the deliverer the next one after a failure. Whatever holds the queue
 * hands each message to the deliverer once it is due, at least once.
 */

export interface DeliveryMessage {
  orgId: string;
  webhookId: string;
  eventSequence: number;
  attempt: number;
  /** Epoch ms before which the message must not be delivered, for a queue whose delays stop short of the wait. */
  notBefore?: number;
}

export interface DeliveryQueue {
  /** Queues the message to be handed to the deliverer `delaySeconds` after `now`. */
  enqueue(message: DeliveryMessage, delaySeconds: number, now?: Date): Promise<void>;
}

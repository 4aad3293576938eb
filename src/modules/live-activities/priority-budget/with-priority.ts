import type { LiveActivityContent } from '../../delivery/message-content';

/** The content of one priority group (absent: the content's own). */
export function withPriority(content: LiveActivityContent, priority: 5 | 10 | undefined): LiveActivityContent {
  return priority === undefined ? content : { ...content, priority };
}

/** An operator's reason for a command, trimmed; undefined when empty or longer than `max` characters. */
export function reasonOf(text: string, max = Number.POSITIVE_INFINITY): string | undefined {
  const reason = text.trim();
  return reason === '' || reason.length > max ? undefined : reason;
}

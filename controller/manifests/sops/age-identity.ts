import { identityToRecipient } from 'age-encryption';

/** The recipient (age1…) of an age identity; null when it is not one. */
export async function recipientOf(identity: string): Promise<string | null> {
  if (!/^AGE-SECRET-KEY-1[0-9A-Z]+$/.test(identity)) return null;
  try {
    return await identityToRecipient(identity);
  } catch {
    return null;
  }
}

// Signing in through the dashboard's own form, as a person does: the one sequence every browser
// test starts from.
import type { Page } from 'playwright-core';
import { PASSWORD } from './fixtures.js';

/** Fills the sign-in form at `baseUrl` on `page` and waits for the first page after it. */
export async function signIn(page: Page, baseUrl: string, email = 'admin@example.test'): Promise<Page> {
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => !u.pathname.startsWith('/login'));
  await page.getByRole('heading', { level: 1 }).waitFor();
  return page;
}

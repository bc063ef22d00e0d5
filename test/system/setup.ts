// The system suites run the gateway as `npm start` does: its build first, once for all of them.
import { buildAsStartDoes } from '../helpers/start-command.ts';

export default async function setup(): Promise<void> {
  await buildAsStartDoes();
}

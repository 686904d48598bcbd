/** `node --import tsx test/e2e/harness/install-cli.ts`: installs the end-to-end tools ahead of a run. */
import { ensureE2eTools } from './install';

ensureE2eTools();

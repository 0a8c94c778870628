import { notifications } from '@mantine/notifications';
import { cleanup, configure } from '@testing-library/react';
import { afterEach, vi } from 'vitest';
import { stopQueryClients } from './render';

// findBy… and waitFor give up after 1 s by default. On two cores shared with the server
// tests, an accordion opening or a query settling passed that now and then with nothing
// wrong (the accounts accordion, seen in CI), and more so with another test run beside this
// one; a real fault still fails, 15 s later.
configure({ asyncUtilTimeout: 15_000 });

// Mantine reads media queries and observes element sizes; happy-dom provides neither.
Object.defineProperty(window, 'matchMedia', {
  writable: true,
  value: (query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addListener: () => {},
    removeListener: () => {},
    addEventListener: () => {},
    removeEventListener: () => {},
    dispatchEvent: () => false,
  }),
});

class ResizeObserverStub {
  observe() {}
  unobserve() {}
  disconnect() {}
}
vi.stubGlobal('ResizeObserver', ResizeObserverStub);

// Mantine's autosizing textarea waits for web fonts; happy-dom has no FontFaceSet.
if (!('fonts' in document)) {
  Object.defineProperty(document, 'fonts', {
    configurable: true,
    value: { addEventListener: () => {}, removeEventListener: () => {}, ready: Promise.resolve() },
  });
}

afterEach(() => {
  cleanup();
  stopQueryClients();
  // Mantine keeps its notifications in a store of its module, shared by the files of a worker.
  notifications.clean();
  window.localStorage.clear();
});
